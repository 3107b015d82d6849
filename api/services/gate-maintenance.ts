import { createHash } from 'node:crypto';
import { CountChanges, type VerdictCount, type VerdictMove } from '../../db/counters/changes.ts';
import { analysisEventOfRow } from '../../db/queries/analysis.ts';
import { stillQueued } from '../../db/queries/fold-queue.ts';
import {
  clearPartitionGates,
  clientsOfServer,
  dropGateKeys,
  type GateKeyRow,
  type GatePartitionRow,
  judgedPartitions,
  type KeyRef,
  loadGateKeys,
  loadGatePartitions,
  type Partition,
  type PartitionRow,
  partitionSizes,
  partitionsEvents,
  partitionsWithStorms,
  saveGateKeys,
  saveGatePartitions,
  setVerdicts,
} from '../../db/queries/gate.ts';
import { duePending, markPending, pendingPartitions, takePending } from '../../db/queries/gate-pending.ts';
import { LOCK_CLASS, lockKeys } from '../../db/queries/locks.ts';
import { clearStorms, deleteStorms, markStormsBuilt, saveStorms, stormsComplete } from '../../db/queries/storms.ts';
import type { SqlRunner, Store, TxRunner } from '../../db/runner.ts';
import {
  byTimeOrder,
  createGateState,
  gateStep,
  isJudged,
  type KeyGateState,
  type PartitionGateState,
  partitionKey,
} from '../../shared/analysis/gate.ts';
import { gateKeysOf } from '../../shared/analysis/request-key.ts';
import { stormFact } from '../../shared/analysis/storm-facts.ts';
import type { StormSummary } from '../../shared/analysis/storm-model.ts';
import { decodeStormState, encodeStormState } from '../../shared/analysis/storm-state-codec.ts';
import { createStormState, type PartitionStormState, PartitionStorms } from '../../shared/analysis/storm-tracker.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';

interface Verdict {
  /** The event's dedupe key (db/queries/gate.ts setVerdicts). */
  eventId: string;
  ts: number;
  server: string;
  avoidable: boolean;
  reason: string | null;
  blockedBy: string | null;
}

/** What one pass changes, written in a few statements at its end (not one per event or partition). */
interface Writes {
  verdicts: Verdict[];
  partitions: GatePartitionRow[];
  /** Keys whose state changed, and keys that no longer hold anything. */
  keys: GateKeyRow[];
  dropped: KeyRef[];
  /** Partitions replayed, whose keys and storms are written afresh, and the storms found or changed. */
  replayed: { pk: string; client: string; server: string }[];
  storms: Map<string, StormSummary>;
  /** Storms a partition showed at its last flush that the data no longer make (their rows are deleted). */
  vanished: { id: string; server: string }[];
  /** Verdicts of counted records that changed: what the counts take from the pass (CountChanges.verdicts). */
  moved: VerdictMove[];
}

/** A partition whose new events all come after its frontier, and the digests of the request keys they use. */
interface Continuation {
  pk: string;
  saved: GatePartitionRow;
  storms: PartitionStormState;
  events: AnalysisEvent[];
  digests: Map<string, string>;
}

/**
 * Keeps every stored event's gate verdict (avoidable, and why) current, in the transaction that stores the events.
 * A partition (client, server) whose new events all come after its frontier continues from its saved state, reading
 * only the keys those events use; one that has no saved position, receives an earlier event, or whose stored events
 * changed (a proxy record shadowed, a reclassification) is replayed from its first event. Either way the verdicts
 * equal those of one replay over all events in time order. The partition's retry loops and probe storms are kept
 * alongside, by the same steps.
 *
 * A replay reads the partition's every event: for a partition of more than `inlineReplayMax` events it would hold
 * the batch's transaction (and, on SQLite, every other writer) for seconds to minutes. Such a replay is made due
 * instead (gate_pending, in this transaction) and runs behind the commit (`replayDuePartitions`); until it has,
 * the partition takes no gate steps and its fresh events stand as needed, and the API reports the lag.
 */
export async function advanceGate(
  tx: TxRunner,
  fresh: readonly AnalysisEvent[],
  mustReplay: ReadonlySet<string> = new Set(),
  inlineReplayMax: number = INLINE_REPLAY_MAX,
): Promise<VerdictMove[]> {
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
  const pks = [...groups.keys()];
  const moved: VerdictMove[] = [];
  for (let start = 0; start < pks.length; start += PARTITIONS_PER_STEP) {
    const step = new Map(pks.slice(start, start + PARTITIONS_PER_STEP).map((pk) => [pk, groups.get(pk) ?? []]));
    moved.push(...(await advancePartitions(tx, step, mustReplay, inlineReplayMax)));
  }
  return moved;
}

/**
 * Partitions whose saved state one step of `advanceGate` loads, steps and writes back before the next step loads
 * theirs. A partition's storm state holds up to a probe window of its attempts (5 minutes), and a fold touches most
 * partitions, so all at once a fold held the whole federation's last 5 minutes: at 1,000 events/s over 1,000 pairs,
 * ~9 MB of JSON read and written back per fold by the third minute, decoded into objects on the thread that folds,
 * and the server's RSS at 394 MB on SQLite, 743 MB on PostgreSQL (`npm run bench -- soak`; docs/adr/0020). By
 * steps, what is held is a step's share; the statements are the same, a few more of them.
 */
export const PARTITIONS_PER_STEP = 100;

/** One step of `advanceGate`: these partitions (locked already) and their fresh events. */
async function advancePartitions(
  tx: TxRunner,
  groups: ReadonlyMap<string, AnalysisEvent[]>,
  mustReplay: ReadonlySet<string>,
  inlineReplayMax: number,
): Promise<VerdictMove[]> {
  const [savedRows, pending] = await Promise.all([
    loadGatePartitions(tx, [...groups.keys()]),
    pendingPartitions(tx, [...groups.keys()]),
  ]);
  const saved = new Map(savedRows.map((row) => [row.partition, row]));
  const writes = emptyWrites();
  const continuing: Continuation[] = [];
  const deferred: string[] = [];
  const replaying: string[] = [];
  for (const [pk, events] of groups) {
    events.sort(byTimeOrder);
    const row = saved.get(pk);
    const first = events[0];
    const storms = savedStorms(row);
    if (pending.has(pk)) {
      // Its replay is due already; this change makes the one in progress stale.
      deferred.push(pk);
    } else if (
      row === undefined ||
      storms === null ||
      first === undefined ||
      mustReplay.has(pk) ||
      !after(first, row)
    ) {
      replaying.push(pk);
    } else {
      continuing.push({ pk, saved: row, storms, events, digests: keyDigests(events) });
    }
  }
  deferred.push(...(await replayInline(tx, replaying, groups, writes, inlineReplayMax)));
  await markPending(
    tx,
    deferred.map((pk) => ({ partition: pk, reset: mustReplay.has(pk) })),
    Date.now(),
  );
  const wanted = continuing.flatMap(({ pk, digests }) => [...digests.values()].map((key) => ({ partition: pk, key })));
  // Digests are of whole request keys, which name the client and the server: unique across partitions.
  const keys = await loadGateKeys(tx, wanted);
  const stored = new Map(keys.map((row) => [row.key, row.state]));
  for (const continuation of continuing) continuePartition(continuation, stored, writes);
  await writeAll(tx, writes);
  return writes.moved;
}

/**
 * Partitions replayed inside a batch's transaction at most this large: ~1 s of replay on this machine (a replay
 * steps ~20k events a second with its reads); a larger one runs behind the commit.
 */
export const INLINE_REPLAY_MAX = 20_000;

/**
 * Replays, in this pass, the partitions no larger than `inlineReplayMax` events besides the fresh ones, and answers
 * the others, to be replayed behind the commit. Their sizes are counted in one statement and their events read a
 * few partitions to a statement: a first fold opens a partition for each of a thousand pairs, and two round trips
 * each cost seconds a fold on PostgreSQL.
 */
async function replayInline(
  tx: TxRunner,
  pks: readonly string[],
  fresh: ReadonlyMap<string, readonly AnalysisEvent[]>,
  writes: Writes,
  inlineReplayMax: number,
): Promise<string[]> {
  const freshOf = (pk: string) => fresh.get(pk)?.length ?? 0;
  const cap = Math.max(0, ...pks.map(freshOf)) + inlineReplayMax + 1;
  const sizes = await partitionSizes(tx, pks.map(partitionOf), cap);
  const deferred: string[] = [];
  let chunk: string[] = [];
  let rows = 0;
  const replayChunk = async () => {
    for (const replay of await replayPartitions(tx, chunk, writes)) finishReplay(replay, writes);
    chunk = [];
    rows = 0;
  };
  for (const [index, pk] of pks.entries()) {
    const size = sizes[index] ?? 0;
    if (size - freshOf(pk) > inlineReplayMax) {
      deferred.push(pk);
      continue;
    }
    if (chunk.length > 0 && rows + size > REPLAY_READ_ROWS) await replayChunk();
    chunk.push(pk);
    rows += size;
  }
  if (chunk.length > 0) await replayChunk();
  return deferred;
}

/** The events one statement of inline replays reads at most (unless one partition alone holds more). */
const REPLAY_READ_ROWS = 50_000;

function partitionOf(pk: string): Partition {
  const [client, server] = JSON.parse(pk) as [string, string];
  return { client, server };
}

function emptyWrites(): Writes {
  return {
    verdicts: [],
    partitions: [],
    keys: [],
    dropped: [],
    replayed: [],
    storms: new Map(),
    vanished: [],
    moved: [],
  };
}

/** Everything one pass changes; sent together, not one answer at a time: the writer runs them back to back. */
async function writeAll(tx: TxRunner, writes: Writes): Promise<void> {
  await Promise.all([
    setVerdicts(tx, writes.verdicts),
    rewriteGate(tx, writes),
    saveGatePartitions(tx, writes.partitions),
    rewriteStorms(tx, writes),
  ]);
}

/**
 * Runs the replays due (the oldest first, at most `limit`): each is computed from the partition's events outside
 * any transaction, then written in a short one. Events stored meanwhile that all come after the replay's last are
 * stepped on from its state inside that transaction (a busy partition's own traffic never makes the replay stale);
 * an earlier event, a shadowed record or a reclassification meanwhile leave it due, to be computed again. Returns
 * how many were written.
 */
export async function replayDuePartitions(store: Store, limit = DUE_PER_ROUND): Promise<number> {
  let written = 0;
  for (const due of await duePending(store, limit)) {
    const writes = emptyWrites();
    const [replay] = await replayPartitions(store, [due.partition], writes);
    if (replay === undefined) continue;
    const applied = await store.transaction(async (tx) => {
      await lockKeys(tx, LOCK_CLASS.gatePartition, [due.partition]);
      if (!(await takePending(tx, due))) return false;
      // Folded since the replay read: events stored after it, and events it read while they were still queued.
      const [stored = []] = await partitionsEvents(tx, [partitionOf(due.partition)], replay.maxSeq);
      const queued = await stillQueued(
        tx,
        replay.queued.map((row) => row.seq),
      );
      const since = [
        ...replay.queued.filter((row) => !queued.has(row.seq)),
        ...stored.filter((row) => row.queued === 0),
      ];
      const last = replay.last;
      if (last !== undefined && since.some((row) => !after(analysisEventOfRow(row), frontierOf(last)))) {
        await markPending(tx, [{ partition: due.partition, reset: true }], due.since);
        return false;
      }
      stepRows(replay, since, writes);
      finishReplay(replay, writes);
      await writeAll(tx, writes);
      const counts = new CountChanges();
      counts.verdicts(writes.moved);
      await counts.write(tx);
      return true;
    });
    if (applied) written++;
  }
  return written;
}

const DUE_PER_ROUND = 8;

/** A replayed partition's keys are cleared before they are written again; the other writes touch other rows. */
async function rewriteGate(tx: TxRunner, writes: Writes): Promise<void> {
  await clearPartitionGates(
    tx,
    writes.replayed.map(({ pk }) => pk),
  );
  await Promise.all([dropGateKeys(tx, writes.dropped), saveGateKeys(tx, writes.keys)]);
}

async function rewriteStorms(tx: TxRunner, writes: Writes): Promise<void> {
  await clearStorms(
    tx,
    writes.replayed.map(({ client, server }) => [client, server] as const),
  );
  await deleteStorms(tx, writes.vanished);
  await saveStorms(tx, [...writes.storms.values()]);
}

/** After a server's buckets changed, every client's verdicts against it are replayed. */
export async function replayServer(tx: TxRunner, server: string): Promise<VerdictMove[]> {
  const clients = await clientsOfServer(tx, server);
  return advanceGate(tx, [], new Set(clients.map((client) => JSON.stringify([client, server]))));
}

const BUILD_CHUNK = 20;

/**
 * Storms are kept from the migration that added them on; a partition whose events were stored before has no storm
 * rows until a batch touches it. This replays every such partition, a few per transaction so that ingest is not
 * held up, once per store. It stops early when `stopping()` says so, and starts over on the next start.
 */
export async function buildMissingStorms(store: Store, stopping: () => boolean = () => false): Promise<number> {
  if (await stormsComplete(store)) return 0;
  const built = new Set(await partitionsWithStorms(store));
  const missing = (await judgedPartitions(store)).filter((pk) => !built.has(pk));
  for (let start = 0; start < missing.length; start += BUILD_CHUNK) {
    if (stopping()) return start;
    const chunk = new Set(missing.slice(start, start + BUILD_CHUNK));
    await store.transaction(async (tx) => {
      const counts = new CountChanges();
      counts.verdicts(await advanceGate(tx, [], chunk));
      await counts.write(tx);
    });
  }
  await markStormsBuilt(store);
  return missing.length;
}

/** The stored gate states of the keys a batch uses, by digest. */
type Stored = ReadonlyMap<string, string>;

const NEEDED: VerdictCount = { avoidable: 0, reason: null };

/** New events after the frontier: fresh rows are stored needed, so only the avoidable ones are written. */
function continuePartition(
  { pk, saved, storms: savedState, events, digests }: Continuation,
  stored: Stored,
  writes: Writes,
): void {
  const keys: Record<string, KeyGateState> = {};
  for (const [key, digest] of digests) {
    const state = stored.get(digest);
    if (state !== undefined) keys[key] = JSON.parse(state) as KeyGateState;
  }
  const state = createGateState();
  // The frontier columns hold the order bookkeeping; seq is 0 on this path (events order by ts, then id).
  const partition = { keys, waitUntil: saved.waitUntil, lastTs: saved.frontierTs, lastSeq: 0 };
  state.partitions[pk] = partition;
  const storms = new PartitionStorms(savedState);
  for (const event of events) {
    const verdict = gateStep(state, event);
    storms.step(stormFact(event, verdict));
    if (!verdict.avoidable) continue;
    writes.verdicts.push({
      eventId: event.id,
      ts: event.ts,
      server: event.server,
      avoidable: true,
      reason: verdict.reason,
      blockedBy: verdict.blockedBy,
    });
    writes.moved.push({ record: event, before: NEEDED, after: { avoidable: 1, reason: verdict.reason } });
  }
  const last = events[events.length - 1] as AnalysisEvent;
  for (const [key, digest] of digests) {
    const held = partition.keys[key];
    const before = stored.get(digest);
    const after = held === undefined ? undefined : JSON.stringify(held);
    if (after === before) continue;
    if (after === undefined) writes.dropped.push({ partition: pk, key: digest });
    else writes.keys.push({ partition: pk, key: digest, state: after });
  }
  writes.partitions.push(...position(pk, partition, flushStorms(storms, writes), last));
}

/** The storms a partition's steps found or changed join the pass's writes; answers the tracker's state to file. */
function flushStorms(storms: PartitionStorms, writes: Writes): PartitionStormState {
  const { final, current, vanished } = storms.flush();
  for (const { attemptIds: _ids, avoidableIds: _avoidable, ...storm } of [...final, ...current]) {
    writes.storms.set(storm.id, storm);
  }
  for (const id of vanished) writes.vanished.push({ id, server: storms.state.server });
  return storms.state;
}

/**
 * The storm tracker's state a partition continues from; null when it has none or one of an earlier definition
 * (migration storms_by_sender): the partition is then replayed.
 */
function savedStorms(row: GatePartitionRow | undefined): PartitionStormState | null {
  return decodeStormState(row?.storms ?? null);
}

/** A replay under way: the gate and storm state so far, and the last event stepped. */
interface Replay {
  pk: string;
  state: ReturnType<typeof createGateState>;
  storms: PartitionStorms;
  last: AnalysisEvent | undefined;
  /** The highest `seq` read: events stored after it were not in the replay. */
  maxSeq: number;
  /** Events read but still queued for their fold: left out, their fold steps them (ADR 10). */
  queued: PartitionRow[];
}

/**
 * Replays partitions from their first folded events; what they write joins the rest of the pass. Events still
 * queued for their fold are left out: judged now, they would move the partition's frontier past the events folded
 * before them, and every fold after would replay the partition again (a backlog folded quadratically).
 */
async function replayPartitions(db: SqlRunner, pks: readonly string[], writes: Writes): Promise<Replay[]> {
  const partitions = pks.map(partitionOf);
  const events = await partitionsEvents(db, partitions);
  return partitions.map(({ client, server }, index) => {
    const rows = events[index] ?? [];
    const pk = pks[index] as string;
    const replay: Replay = {
      pk,
      state: createGateState(),
      storms: new PartitionStorms(createStormState(client, server)),
      last: undefined,
      maxSeq: rows.reduce((max, row) => Math.max(max, row.seq), 0),
      queued: rows.filter((row) => row.queued === 1),
    };
    writes.replayed.push({ pk, client, server });
    stepRows(
      replay,
      rows.filter((row) => row.queued === 0),
      writes,
    );
    return replay;
  });
}

/**
 * One pass over rows in (ts, id) order gives the verdicts, the storms and the state the partition continues from;
 * a verdict is written where it differs from the stored one.
 */
function stepRows(replay: Replay, rows: PartitionRow[], writes: Writes): void {
  // Ordered here, not by SQL: PostgreSQL would sort ids by its collation, the frontier compares them as JS does.
  rows.sort((a, b) => a.ts - b.ts || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
  for (const row of rows) {
    const event = analysisEventOfRow(row);
    replay.last = event;
    const verdict = gateStep(replay.state, event);
    const { avoidable, reason, blockedBy } = verdict;
    if (isJudged(event)) replay.storms.step(stormFact(event, verdict));
    if ((row.avoidable === 1) === avoidable && row.gateReason === reason && row.blockedBy === blockedBy) continue;
    writes.verdicts.push({ eventId: row.eventId, ts: row.ts, server: row.server, avoidable, reason, blockedBy });
    // Only counted records are in the rollups; a shadowed one's counts came off when it was shadowed. The old
    // verdict comes off under its reason and the new one goes on under its own.
    if (row.counted === 1) {
      writes.moved.push({
        record: event,
        before: { avoidable: row.avoidable, reason: row.gateReason },
        after: { avoidable: avoidable ? 1 : 0, reason },
      });
    }
  }
}

/** The state a replay ends in, filed for the partition to continue from. */
function finishReplay({ pk, state, storms, last }: Replay, writes: Writes): void {
  const partition = state.partitions[pk];
  for (const [key, held] of Object.entries(partition?.keys ?? {})) {
    writes.keys.push({ partition: pk, key: keyDigest(key), state: JSON.stringify(held) });
  }
  writes.partitions.push(...position(pk, partition, flushStorms(storms, writes), last));
}

function position(
  pk: string,
  partition: PartitionGateState | undefined,
  storms: PartitionStormState,
  last: AnalysisEvent | undefined,
): GatePartitionRow[] {
  if (last === undefined) return [];
  return [
    {
      partition: pk,
      waitUntil: partition?.waitUntil ?? null,
      frontierTs: last.ts,
      frontierId: last.id,
      storms: encodeStormState(storms),
    },
  ];
}

function keyDigests(events: readonly AnalysisEvent[]): Map<string, string> {
  const digests = new Map<string, string>();
  for (const event of events) {
    for (const key of gateKeysOf(event)) if (!digests.has(key)) digests.set(key, keyDigest(key));
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

function frontierOf(event: AnalysisEvent): { frontierTs: number; frontierId: string } {
  return { frontierTs: event.ts, frontierId: event.id };
}

function after(event: AnalysisEvent, frontier: { frontierTs: number; frontierId: string }): boolean {
  return event.ts > frontier.frontierTs || (event.ts === frontier.frontierTs && event.id > frontier.frontierId);
}
