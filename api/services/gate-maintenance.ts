import {
  clientsOfServer,
  type GatePartitionRow,
  loadGatePartitions,
  moveFrontiers,
  partitionEvents,
  saveGatePartitions,
  setVerdicts,
} from '../../db/queries/gate.ts';
import { LOCK_CLASS, lockKeys } from '../../db/queries/locks.ts';
import type { TxRunner } from '../../db/runner.ts';
import {
  byTimeOrder,
  createGateState,
  type GateState,
  gateStep,
  partitionKey,
  replayGate,
} from '../../shared/analysis/gate.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { toAnalysisEvent } from './analysis/load.ts';
import type { RollupChanges } from './rollups.ts';

interface Verdict {
  eventId: string;
  avoidable: boolean;
  reason: string | null;
}

/** What one pass changes, written in two statements at its end (not one per event or partition). */
interface Writes {
  verdicts: Verdict[];
  /** Partitions whose rules state changed. */
  states: GatePartitionRow[];
  /** Partitions that only moved their frontier: most traffic succeeds and changes no rule. */
  frontiers: Omit<GatePartitionRow, 'state'>[];
  rollups: RollupChanges;
}

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
  // Two batches for one partition would otherwise both continue from the same saved state.
  await lockKeys(tx, LOCK_CLASS.gatePartition, [...groups.keys()]);
  const saved = new Map((await loadGatePartitions(tx, [...groups.keys()])).map((row) => [row.partition, row]));
  const writes: Writes = { verdicts: [], states: [], frontiers: [], rollups };
  for (const [pk, events] of groups) {
    events.sort(byTimeOrder);
    const row = saved.get(pk);
    const first = events[0];
    if (mustReplay.has(pk) || first === undefined || (row !== undefined && !after(first, row))) {
      await replayPartition(tx, pk, writes);
    } else {
      continuePartition(pk, row ?? null, events, writes);
    }
  }
  await setVerdicts(tx, writes.verdicts);
  await saveGatePartitions(tx, writes.states);
  await moveFrontiers(tx, writes.frontiers);
}

/** After a server's buckets changed, every client's verdicts against it are replayed. */
export async function replayServer(tx: TxRunner, server: string, rollups: RollupChanges): Promise<void> {
  const clients = await clientsOfServer(tx, server);
  await advanceGate(tx, [], rollups, new Set(clients.map((client) => JSON.stringify([client, server]))));
}

/** New events after the frontier: fresh rows are stored needed, so only the avoidable ones are written. */
function continuePartition(pk: string, saved: GatePartitionRow | null, events: AnalysisEvent[], writes: Writes): void {
  const state = createGateState();
  if (saved !== null) {
    // The frontier columns hold the order bookkeeping; seq is 0 on this path (events order by ts, then id).
    state.partitions[pk] = { ...(JSON.parse(saved.state) as StoredRules), lastTs: saved.frontierTs, lastSeq: 0 };
  }
  for (const event of events) {
    const verdict = gateStep(state, event);
    if (!verdict.avoidable) continue;
    writes.verdicts.push({ eventId: event.id, avoidable: true, reason: verdict.reason });
    writes.rollups.add(event, 0, 1);
  }
  keepFrontier(pk, state, events[events.length - 1], writes, saved?.state ?? null);
}

async function replayPartition(tx: TxRunner, pk: string, writes: Writes): Promise<void> {
  const [client, server] = JSON.parse(pk) as [string, string];
  // Ordered here, not by SQL: PostgreSQL would sort ids by its collation, the frontier compares them as JS does.
  const rows = (await partitionEvents(tx, client, server)).sort(
    (a, b) => a.ts - b.ts || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0),
  );
  const events = rows.map(toAnalysisEvent);
  const verdicts = replayGate(events);
  for (const [index, row] of rows.entries()) {
    const verdict = verdicts.get(row.eventId);
    const avoidable = verdict?.avoidable ?? false;
    const reason = verdict?.reason ?? null;
    if ((row.avoidable === 1) === avoidable && row.gateReason === reason) continue;
    writes.verdicts.push({ eventId: row.eventId, avoidable, reason });
    // Only counted records are in the rollups; a shadowed one's counts came off when it was shadowed.
    if (row.counted === 1) writes.rollups.add(events[index] as AnalysisEvent, 0, (avoidable ? 1 : 0) - row.avoidable);
  }
  const state = createGateState();
  for (const event of events) gateStep(state, event);
  keepFrontier(pk, state, events[events.length - 1], writes, null);
}

/** A partition's gate rules without the order bookkeeping, which the frontier columns keep. */
type StoredRules = Omit<GateState['partitions'][string], 'lastTs' | 'lastSeq'>;

function keepFrontier(
  pk: string,
  state: GateState,
  last: AnalysisEvent | undefined,
  writes: Writes,
  storedRules: string | null,
): void {
  const partition = state.partitions[pk];
  if (partition === undefined || last === undefined) return;
  const { lastTs: _ts, lastSeq: _seq, ...rules } = partition;
  const text = JSON.stringify(rules satisfies StoredRules);
  const frontier = { partition: pk, frontierTs: last.ts, frontierId: last.id };
  if (text === storedRules) writes.frontiers.push(frontier);
  else writes.states.push({ ...frontier, state: text });
}

function after(event: AnalysisEvent, frontier: { frontierTs: number; frontierId: string }): boolean {
  return event.ts > frontier.frontierTs || (event.ts === frontier.frontierTs && event.id > frontier.frontierId);
}
