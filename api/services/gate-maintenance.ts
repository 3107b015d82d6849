import {
  clientsOfServer,
  loadGatePartitions,
  partitionEvents,
  saveGatePartition,
  setVerdicts,
} from '../../db/queries/gate.ts';
import type { TxRunner } from '../../db/runner.ts';
import { createGateState, type GateState, gateStep, partitionKey, replayGate } from '../../shared/analysis/gate.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { toAnalysisEvent } from './analysis/load.ts';
import type { RollupChanges } from './rollups.ts';

/**
 * Keeps every stored event's gate verdict (avoidable, and why) current, in the transaction that stores the events.
 * A partition (client, server) whose new events all come after its frontier continues from its saved state; one
 * that receives an earlier event, or whose stored events changed (a proxy record shadowed, a reclassification),
 * is replayed from its first event. Either way the verdicts equal those of one replay over all events in time order.
 */
export async function advanceGate(
  tx: TxRunner,
  fresh: readonly AnalysisEvent[],
  rollups: RollupChanges,
  mustReplay: ReadonlySet<string> = new Set(),
): Promise<void> {
  const groups = new Map<string, AnalysisEvent[]>();
  for (const event of fresh) {
    const pk = partitionKey(event);
    if (pk === null) continue;
    const group = groups.get(pk) ?? [];
    group.push(event);
    groups.set(pk, group);
  }
  for (const pk of mustReplay) if (!groups.has(pk)) groups.set(pk, []);
  const saved = new Map((await loadGatePartitions(tx, [...groups.keys()])).map((row) => [row.partition, row]));
  for (const [pk, events] of groups) {
    events.sort(byTsThenId);
    const row = saved.get(pk);
    const first = events[0];
    const continues = row !== undefined && first !== undefined && !mustReplay.has(pk) && after(first, row);
    if (continues) await continuePartition(tx, pk, JSON.parse(row.state), events, rollups);
    else if (row === undefined && first !== undefined && !mustReplay.has(pk)) {
      await continuePartition(tx, pk, null, events, rollups);
    } else await replayPartition(tx, pk, rollups);
  }
}

/** After a server's buckets changed, every client's verdicts against it are replayed. */
export async function replayServer(tx: TxRunner, server: string, rollups: RollupChanges): Promise<void> {
  const clients = await clientsOfServer(tx, server);
  await advanceGate(tx, [], rollups, new Set(clients.map((client) => JSON.stringify([client, server]))));
}

async function continuePartition(
  tx: TxRunner,
  pk: string,
  saved: unknown,
  events: AnalysisEvent[],
  rollups: RollupChanges,
): Promise<void> {
  const state = createGateState();
  if (saved !== null) state.partitions[pk] = saved as GateState['partitions'][string];
  const avoidable = [];
  for (const event of events) {
    const verdict = gateStep(state, event);
    if (verdict.avoidable) {
      avoidable.push({ eventId: event.id, avoidable: true, reason: verdict.reason });
      rollups.add(event, 0, 1);
    }
  }
  await setVerdicts(tx, avoidable);
  await saveFrontier(tx, pk, state, events[events.length - 1]);
}

async function replayPartition(tx: TxRunner, pk: string, rollups: RollupChanges): Promise<void> {
  const [client, server] = JSON.parse(pk) as [string, string];
  const rows = await partitionEvents(tx, client, server);
  const events = rows.map(toAnalysisEvent);
  const verdicts = replayGate(events);
  const changed = [];
  for (const [index, row] of rows.entries()) {
    const verdict = verdicts.get(row.eventId);
    const avoidable = verdict?.avoidable ?? false;
    const reason = verdict?.reason ?? null;
    if ((row.avoidable === 1) !== avoidable || row.gateReason !== reason) {
      changed.push({ eventId: row.eventId, avoidable, reason });
      // Only counted records are in the rollups; a shadowed one's counts came off when it was shadowed.
      if (row.counted === 1) rollups.add(events[index] as AnalysisEvent, 0, (avoidable ? 1 : 0) - row.avoidable);
    }
  }
  await setVerdicts(tx, changed);
  const state = createGateState();
  for (const event of events) gateStep(state, event);
  await saveFrontier(tx, pk, state, events[events.length - 1]);
}

async function saveFrontier(tx: TxRunner, pk: string, state: GateState, last: AnalysisEvent | undefined) {
  const partition = state.partitions[pk];
  if (partition === undefined || last === undefined) return;
  await saveGatePartition(tx, {
    partition: pk,
    state: JSON.stringify(partition),
    frontierTs: last.ts,
    frontierId: last.id,
  });
}

function after(event: AnalysisEvent, frontier: { frontierTs: number; frontierId: string }): boolean {
  return event.ts > frontier.frontierTs || (event.ts === frontier.frontierTs && event.id > frontier.frontierId);
}

function byTsThenId(a: AnalysisEvent, b: AnalysisEvent): number {
  return a.ts - b.ts || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
