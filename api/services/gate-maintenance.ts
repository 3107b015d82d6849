import { createHash } from 'node:crypto';
import {
  clearGateKeys,
  clientsOfServer,
  dropGateKeys,
  type GateKeyRow,
  type GatePartitionRow,
  loadGateKeys,
  loadGatePartitions,
  partitionEvents,
  saveGateKeys,
  saveGatePartitions,
  setVerdicts,
} from '../../db/queries/gate.ts';
import { LOCK_CLASS, lockKeys } from '../../db/queries/locks.ts';
import type { TxRunner } from '../../db/runner.ts';
import {
  byTimeOrder,
  createGateState,
  gateStep,
  type KeyGateState,
  type PartitionGateState,
  partitionKey,
} from '../../shared/analysis/gate.ts';
import { requestKey } from '../../shared/analysis/request-key.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { toAnalysisEvent } from './analysis/load.ts';
import type { RollupChanges } from './rollups.ts';

interface Verdict {
  eventId: string;
  avoidable: boolean;
  reason: string | null;
}

/** What one pass changes, written in a few statements at its end (not one per event or partition). */
interface Writes {
  verdicts: Verdict[];
  partitions: GatePartitionRow[];
  /** Keys whose state changed, and keys that no longer hold anything. */
  keys: GateKeyRow[];
  dropped: Omit<GateKeyRow, 'state'>[];
  rollups: RollupChanges;
}

/** A partition whose new events all come after its frontier, and the digests of the request keys they use. */
interface Continuation {
  pk: string;
  saved: GatePartitionRow;
  events: AnalysisEvent[];
  digests: Map<string, string>;
}

/**
 * Keeps every stored event's gate verdict (avoidable, and why) current, in the transaction that stores the events.
 * A partition (client, server) whose new events all come after its frontier continues from its saved state, reading
 * only the keys those events use; one that has no saved position, receives an earlier event, or whose stored events
 * changed (a proxy record shadowed, a reclassification) is replayed from its first event. Either way the verdicts
 * equal those of one replay over all events in time order.
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
  const writes: Writes = { verdicts: [], partitions: [], keys: [], dropped: [], rollups };
  const continuing: Continuation[] = [];
  for (const [pk, events] of groups) {
    events.sort(byTimeOrder);
    const row = saved.get(pk);
    const first = events[0];
    if (row === undefined || first === undefined || mustReplay.has(pk) || !after(first, row)) {
      await replayPartition(tx, pk, writes);
    } else {
      continuing.push({ pk, saved: row, events, digests: keyDigests(events) });
    }
  }
  const wanted = continuing.flatMap(({ pk, digests }) => [...digests.values()].map((key) => ({ partition: pk, key })));
  const stored = new Map((await loadGateKeys(tx, wanted)).map((row) => [row.key, row.state]));
  for (const continuation of continuing) continuePartition(continuation, stored, writes);
  await setVerdicts(tx, writes.verdicts);
  await dropGateKeys(tx, writes.dropped);
  await saveGateKeys(tx, writes.keys);
  await saveGatePartitions(tx, writes.partitions);
}

/** After a server's buckets changed, every client's verdicts against it are replayed. */
export async function replayServer(tx: TxRunner, server: string, rollups: RollupChanges): Promise<void> {
  const clients = await clientsOfServer(tx, server);
  await advanceGate(tx, [], rollups, new Set(clients.map((client) => JSON.stringify([client, server]))));
}

/** New events after the frontier: fresh rows are stored needed, so only the avoidable ones are written. */
function continuePartition(
  { pk, saved, events, digests }: Continuation,
  stored: ReadonlyMap<string, string>,
  writes: Writes,
): void {
  const keys: Record<string, KeyGateState> = {};
  for (const [key, digest] of digests) {
    const text = stored.get(digest);
    if (text !== undefined) keys[key] = JSON.parse(text) as KeyGateState;
  }
  const state = createGateState();
  // The frontier columns hold the order bookkeeping; seq is 0 on this path (events order by ts, then id).
  const partition = { keys, waitUntil: saved.waitUntil, lastTs: saved.frontierTs, lastSeq: 0 };
  state.partitions[pk] = partition;
  for (const event of events) {
    const verdict = gateStep(state, event);
    if (!verdict.avoidable) continue;
    writes.verdicts.push({ eventId: event.id, avoidable: true, reason: verdict.reason });
    writes.rollups.add(event, 0, 1, verdict.reason);
  }
  for (const [key, digest] of digests) {
    const held = partition.keys[key];
    const text = held === undefined ? undefined : JSON.stringify(held);
    if (text === stored.get(digest)) continue;
    if (text === undefined) writes.dropped.push({ partition: pk, key: digest });
    else writes.keys.push({ partition: pk, key: digest, state: text });
  }
  writes.partitions.push(...position(pk, partition, events[events.length - 1]));
}

/** Writes the partition's keys at once: after a migration every partition replays, and all keys would pile up. */
async function replayPartition(tx: TxRunner, pk: string, writes: Writes): Promise<void> {
  const [client, server] = JSON.parse(pk) as [string, string];
  // Ordered here, not by SQL: PostgreSQL would sort ids by its collation, the frontier compares them as JS does.
  const rows = (await partitionEvents(tx, client, server)).sort(
    (a, b) => a.ts - b.ts || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0),
  );
  const events = rows.map(toAnalysisEvent);
  // One pass in (ts, id) order gives both the verdicts and the state the partition continues from.
  const state = createGateState();
  for (const [index, row] of rows.entries()) {
    const { avoidable, reason } = gateStep(state, events[index] as AnalysisEvent);
    if ((row.avoidable === 1) === avoidable && row.gateReason === reason) continue;
    writes.verdicts.push({ eventId: row.eventId, avoidable, reason });
    // Only counted records are in the rollups; a shadowed one's counts came off when it was shadowed. The old
    // verdict comes off under its reason and the new one goes on under its own.
    if (row.counted === 1) {
      const event = events[index] as AnalysisEvent;
      writes.rollups.add(event, 0, -row.avoidable, row.gateReason);
      writes.rollups.add(event, 0, avoidable ? 1 : 0, reason);
    }
  }
  const partition = state.partitions[pk];
  const keys = Object.entries(partition?.keys ?? {});
  await clearGateKeys(tx, pk);
  await saveGateKeys(
    tx,
    keys.map(([key, held]) => ({ partition: pk, key: keyDigest(key), state: JSON.stringify(held) })),
  );
  writes.partitions.push(...position(pk, partition, events[events.length - 1]));
}

function position(
  pk: string,
  partition: PartitionGateState | undefined,
  last: AnalysisEvent | undefined,
): GatePartitionRow[] {
  return last === undefined
    ? []
    : [{ partition: pk, waitUntil: partition?.waitUntil ?? null, frontierTs: last.ts, frontierId: last.id }];
}

function keyDigests(events: readonly AnalysisEvent[]): Map<string, string> {
  const digests = new Map<string, string>();
  for (const event of events) {
    const key = requestKey(event);
    if (!digests.has(key)) digests.set(key, keyDigest(key));
  }
  return digests;
}

/**
 * Keys are filed under a digest: a request key holds a path of up to 4 KB, past what a PostgreSQL index entry can
 * take. 128 bits of SHA-256 leave no collision to expect among any number of keys a store will ever see.
 */
function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 22);
}

function after(event: AnalysisEvent, frontier: { frontierTs: number; frontierId: string }): boolean {
  return event.ts > frontier.frontierTs || (event.ts === frontier.frontierTs && event.id > frontier.frontierId);
}
