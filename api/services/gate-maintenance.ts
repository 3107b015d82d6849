import { CountChanges } from '../../db/counters/changes.ts';
import { analysisEventOfRow } from '../../db/queries/analysis.ts';
import { stillQueued } from '../../db/queries/fold-queue.ts';
import {
  clearPartitionGates,
  clientsOfServer,
  dropGateKeys,
  type GateKeyRow,
  judgedPartitions,
  type KeyRef,
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
import { loadCheckpoints, restoreCheckpointKeys } from '../../db/queries/gate-checkpoints.ts';
import { duePending, markPending, pendingPartitions, takePending } from '../../db/queries/gate-pending.ts';
import { LOCK_CLASS, lockKeys } from '../../db/queries/locks.ts';
import { clearStorms, deleteStorms, markStormsBuilt, saveStorms, stormsComplete } from '../../db/queries/storms.ts';
import type { SqlRunner, Store, TxRunner } from '../../db/runner.ts';
import { partitionKey } from '../../shared/analysis/gate.ts';
import {
  continuePartitions,
  finishReplay,
  type GateChanges,
  keysUsed,
  noChanges,
  planPartitions,
  type Replay,
  replayPartition,
  type StoredEvent,
  stepOn,
  type VerdictMove,
} from '../../shared/analysis/gate-step.ts';
import type { StormStateCache } from '../../shared/analysis/storm-state-cache.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { keyDigest, loadKeys } from './gate-keys.ts';

/**
 * Keeps every stored event's gate verdict (avoidable, and why) current, in the fold's transaction (ADR 10): loads
 * the partitions' saved state, hands it to the step (shared/analysis/gate-step.ts), which decides and answers what
 * changed, and writes that.
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
 *
 * `stormStates` is the folder's: the storm states it saved, kept decoded for its next fold (checked against what
 * the store holds, shared/analysis/storm-state-cache.ts).
 */
export async function advanceGate(
  tx: TxRunner,
  fresh: readonly AnalysisEvent[],
  mustReplay: ReadonlySet<string> = new Set(),
  inlineReplayMax: number = INLINE_REPLAY_MAX,
  stormStates?: StormStateCache,
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
    moved.push(...(await advancePartitions(tx, step, mustReplay, inlineReplayMax, stormStates)));
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

/**
 * One step of `advanceGate`: these partitions (locked already) and their fresh events. Loads their saved positions,
 * lets the step decide (shared/analysis/gate-step.ts), reads what it needs for that (the keys of the continuations,
 * the events of the replays), and writes what it answers.
 */
async function advancePartitions(
  tx: TxRunner,
  groups: ReadonlyMap<string, AnalysisEvent[]>,
  mustReplay: ReadonlySet<string>,
  inlineReplayMax: number,
  stormStates: StormStateCache | undefined,
): Promise<VerdictMove[]> {
  const pks = [...groups.keys()];
  const [saved, pending] = await Promise.all([loadGatePartitions(tx, pks), pendingPartitions(tx, pks)]);
  const byPartition = new Map(saved.map((row) => [row.partition, row]));
  const plan = planPartitions(groups, byPartition, pending, mustReplay, stormStates);
  const changes = noChanges();
  const deferred = [...plan.deferred, ...(await replayInline(tx, plan.replay, groups, changes, inlineReplayMax))];
  await markPending(
    tx,
    deferred.map((pk) => ({ partition: pk, reset: mustReplay.has(pk) })),
    Date.now(),
  );
  const { stored, digests } = await loadKeys(
    tx,
    plan.continuing.map(({ saved, keys }) => [saved.partition, keys]),
  );
  continuePartitions(plan.continuing, stored, changes);
  await writeAll(tx, changes, (key) => digests.get(key) ?? keyDigest(key));
  if (stormStates !== undefined) {
    for (const { partition, storms } of changes.partitions) {
      const state = changes.stormStates.get(partition);
      if (storms !== null && state !== undefined) stormStates.keep(partition, storms, state);
    }
  }
  return changes.moved;
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
  changes: GateChanges,
  inlineReplayMax: number,
): Promise<string[]> {
  const freshOf = (pk: string) => fresh.get(pk)?.length ?? 0;
  const cap = Math.max(0, ...pks.map(freshOf)) + inlineReplayMax + 1;
  const sizes = await partitionSizes(tx, pks.map(partitionOf), cap);
  const deferred: string[] = [];
  let chunk: string[] = [];
  let rows = 0;
  const replayChunk = async () => {
    for (const { replay } of await readReplays(tx, chunk, changes)) finishReplay(replay, changes);
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

/**
 * Writes what a step changed: everything sent together, not one answer at a time (the writer runs them back to
 * back). Keys are filed under their digests.
 */
async function writeAll(tx: TxRunner, changes: GateChanges, digestOf: (key: string) => string): Promise<void> {
  const keys: GateKeyRow[] = [];
  const dropped: KeyRef[] = [];
  for (const { partition, key, state } of changes.keys) {
    if (state === null) dropped.push({ partition, key: digestOf(key) });
    else keys.push({ partition, key: digestOf(key), state });
  }
  await Promise.all([
    setVerdicts(tx, changes.verdicts),
    rewriteGate(tx, changes, keys, dropped),
    saveGatePartitions(tx, changes.partitions),
    rewriteStorms(tx, changes),
  ]);
}

/** A replayed partition's keys are cleared before they are written again; the other writes touch other rows. */
async function rewriteGate(
  tx: TxRunner,
  changes: GateChanges,
  keys: readonly GateKeyRow[],
  dropped: readonly KeyRef[],
): Promise<void> {
  await clearPartitionGates(
    tx,
    changes.replayed.map(({ partition }) => partition),
  );
  await restoreCheckpointKeys(
    tx,
    changes.replayed.flatMap(({ partition, kept }) => (kept === null ? [] : [partition])),
  );
  await Promise.all([dropGateKeys(tx, dropped), saveGateKeys(tx, keys)]);
}

async function rewriteStorms(tx: TxRunner, changes: GateChanges): Promise<void> {
  await clearStorms(tx, changes.replayed);
  await deleteStorms(tx, changes.vanished);
  await saveStorms(tx, [...changes.storms.values()]);
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
    const changes = noChanges();
    const [read] = await readReplays(store, [due.partition], changes);
    if (read === undefined) continue;
    const applied = await store.transaction(async (tx) => {
      await lockKeys(tx, LOCK_CLASS.gatePartition, [due.partition]);
      if (!(await takePending(tx, due))) return false;
      // Folded since the replay read: events stored after it, and events it read while they were still queued.
      const [stored = []] = await partitionsEvents(tx, [partitionOf(due.partition)], read.maxSeq);
      const queued = await stillQueued(
        tx,
        read.queued.map((row) => row.seq),
      );
      const since = storedEvents([
        ...read.queued.filter((row) => !queued.has(row.seq)),
        ...stored.filter((row) => row.queued === 0),
      ]);
      // From a checkpoint, the events folded since read its states of their keys first.
      const keys = read.replay.seeded === null ? undefined : await checkpointKeys(tx, [[due.partition, since]]);
      if (!stepOn(read.replay, since, changes, keys)) {
        await markPending(tx, [{ partition: due.partition, reset: true }], due.since);
        return false;
      }
      finishReplay(read.replay, changes);
      await writeAll(tx, changes, keyDigest);
      const counts = new CountChanges();
      counts.verdicts(changes.moved);
      await counts.write(tx);
      return true;
    });
    if (applied) written++;
  }
  return written;
}

const DUE_PER_ROUND = 8;

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

/** A replay read from the store: besides the step's state, what it read, for stepping on what was folded since. */
interface ReadReplay {
  replay: Replay;
  /** The highest `seq` read: events stored after it were not in the replay. */
  maxSeq: number;
  /** Events read but still queued for their fold: left out, their fold steps them (ADR 10). */
  queued: PartitionRow[];
}

/**
 * Reads partitions' events and replays them from their first folded one; what they change joins `changes`. Events
 * still queued for their fold are left out: judged now, they would move the partition's frontier past the events
 * folded before them, and every fold after would replay the partition again (a backlog folded quadratically).
 */
async function readReplays(db: SqlRunner, pks: readonly string[], changes: GateChanges): Promise<ReadReplay[]> {
  const [events, saved] = await Promise.all([partitionsEvents(db, pks.map(partitionOf)), loadCheckpoints(db, pks)]);
  const checkpoints = new Map(saved.map((checkpoint) => [checkpoint.partition, checkpoint]));
  const folded = pks.map((_, index) => storedEvents((events[index] ?? []).filter((row) => row.queued === 0)));
  const keys = await checkpointKeys(
    db,
    pks.flatMap((pk, index) => (checkpoints.has(pk) ? [[pk, folded[index] ?? []] as const] : [])),
  );
  return pks.map((pk, index) => {
    const rows = events[index] ?? [];
    const checkpoint = checkpoints.get(pk);
    const start = checkpoint === undefined ? undefined : { saved: checkpoint, keys };
    return {
      replay: replayPartition(pk, folded[index] ?? [], changes, start),
      maxSeq: rows.reduce((max, row) => Math.max(max, row.seq), 0),
      queued: rows.filter((row) => row.queued === 1),
    };
  });
}

/** The checkpoints' states of the keys the partitions' events use, by request key (they name their partition). */
async function checkpointKeys(
  db: SqlRunner,
  events: readonly (readonly [partition: string, events: readonly StoredEvent[]])[],
): Promise<Map<string, string>> {
  const wanted = events.map(([partition, stored]) => [partition, keysUsed(stored.map(({ event }) => event))] as const);
  return (await loadKeys(db, wanted, 'gate_checkpoint_keys')).stored;
}

function storedEvents(rows: readonly PartitionRow[]): StoredEvent[] {
  return rows.map((row) => ({
    event: analysisEventOfRow(row),
    avoidable: row.avoidable === 1,
    reason: row.gateReason,
    blockedBy: row.blockedBy,
  }));
}
