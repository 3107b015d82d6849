/**
 * The gate's and storms' step over a fold's events, apart from where their state is kept. Modelled on Grafana's
 * alerting state manager (pkg/services/ngalert/state/manager.go): `ProcessEvalResults` computes every transition in
 * memory from the cached states, then `persister.Sync` writes them. Here the caller loads the saved states, the step
 * answers what changed (`GateChanges`), and the caller writes it (api/services/gate-maintenance.ts, ADR 10); nothing
 * in this file reads or writes a store, so its decisions are tested on plain values (gate-step.test.ts).
 *
 * Unlike Grafana's cache, a partition's state is not all in memory: what a step reads depends on what it decides
 * (the keys its events use when it continues, every stored event when it replays), so the step comes in the calls
 * those reads sit between: `planPartitions`, then `continuePartitions` or `replayPartition` (then `stepOn` for events
 * folded since) and `finishReplay`.
 */
import {
  byTimeOrder,
  createGateState,
  type GateState,
  gateStep,
  isJudged,
  type KeyGateState,
  type PartitionGateState,
} from './gate.ts';
import type { GateVerdict } from './gate-types.ts';
import { type AttemptKeys, attemptKeys } from './request-key.ts';
import { stormFact } from './storm-facts.ts';
import type { StormSummary } from './storm-model.ts';
import type { StormStateCache } from './storm-state-cache.ts';
import { decodeStormState, encodeStormState } from './storm-state-codec.ts';
import { createStormState, heldFrom, type PartitionStormState, PartitionStorms } from './storm-tracker.ts';
import type { AnalysisEvent } from './types.ts';

/** A partition's saved position, as stored: where its last step ended, its throttle, its storm tracker's state. */
export interface SavedPartition {
  /** `partitionKey` of its events: JSON [client, server]. */
  partition: string;
  waitUntil: number | null;
  frontierTs: number;
  frontierId: string;
  /** The storm tracker's state as encoded (storm-state-codec.ts); null when the partition's storms were never built. */
  storms: string | null;
}

/**
 * A partition's gate and storm tracker at the cold horizon, as stored (gate_checkpoints, ADR 21): stepped through
 * the events compaction packs (`stepCheckpoint`), where a replay starts once the partition's older events are packed.
 */
export interface SavedCheckpoint {
  partition: string;
  /** The (ts, event id) of the last packed event stepped. */
  frontierTs: number;
  frontierId: string;
  waitUntil: number | null;
  /** The storm tracker's state as encoded (storm-state-codec.ts). */
  storms: string;
  /** JSON of the `FinalStorm`s a replay from here keeps (`StormsKept`). */
  finalStorms: string;
}

/** A storm final at a checkpoint, by its id and first attempt's time. */
type FinalStorm = [id: string, firstTs: number];

/**
 * Which of a partition's stored storms a replay from a checkpoint keeps: those beginning before `from` (the earliest
 * attempt its tracker still holds, or its frontier), and the `final` ones beginning after it. Both were final at the
 * checkpoint, which no event after it changes; every other storm of the partition is written afresh by the replay.
 */
export interface StormsKept {
  from: number;
  final: string[];
}

/** A verdict that differs from the stored one: the event by its dedupe key (id, time, server) and the new verdict. */
export interface VerdictWrite {
  eventId: string;
  ts: number;
  server: string;
  avoidable: boolean;
  reason: string | null;
  blockedBy: string | null;
}

/** A gate verdict as the counts file it: avoidable (0/1) and why. */
export interface VerdictCount {
  avoidable: number;
  reason: string | null;
}

/** A counted record's verdict changed: its avoidable count moves from `before` to `after` (db CountChanges.verdicts). */
export interface VerdictMove {
  record: AnalysisEvent;
  before: VerdictCount;
  after: VerdictCount;
}

/** A request key's state changed: its new state as JSON, or null once it holds nothing. */
export interface KeyChange {
  partition: string;
  /** The request key itself (gateKeysOf); the store files it under a digest. */
  key: string;
  state: string | null;
}

/** Everything a step changed, to be written together. */
export interface GateChanges {
  verdicts: VerdictWrite[];
  /** Verdicts of counted records that changed: what the counts take from the step. */
  moved: VerdictMove[];
  /** New saved positions. */
  partitions: SavedPartition[];
  keys: KeyChange[];
  /**
   * Partitions replayed: their stored keys and storms are replaced by those `keys` and `storms` hold. From a
   * checkpoint, the keys start as the checkpoint's and the storms `kept` stay.
   */
  replayed: { partition: string; client: string; server: string; kept: StormsKept | null }[];
  /** Storms found or changed, by id. */
  storms: Map<string, StormSummary>;
  /** Storms shown at a partition's last flush that the data no longer make: their rows are closed (deleted). */
  vanished: { id: string; server: string }[];
  /**
   * The storm tracker state each new saved position's `storms` was encoded from, by partition: stepped no more, for
   * a cache to keep decoded (storm-state-cache.ts).
   */
  stormStates: Map<string, PartitionStormState>;
}

export function noChanges(): GateChanges {
  return {
    verdicts: [],
    moved: [],
    partitions: [],
    keys: [],
    replayed: [],
    storms: new Map(),
    vanished: [],
    stormStates: new Map(),
  };
}

/** A partition whose fresh events all come after its frontier: it steps on from its saved state. */
export interface Continuation {
  saved: SavedPartition;
  storms: PartitionStormState;
  /** Its fresh events in time order. */
  events: AnalysisEvent[];
  /** The request keys those events use: the only stored key states the step reads. */
  keys: Set<string>;
  /** Each event's gate keys, in the order of `events`: built once, for the plan and the step. */
  eventKeys: AttemptKeys[];
}

/** What a step does with each partition it is handed. */
export interface GatePlan {
  continuing: Continuation[];
  /** Replayed from their first stored event: never seen, an earlier event, a state of an older shape, or asked to. */
  replay: string[];
  /** A replay is due behind the commit already: this change makes the one in progress stale, so it waits for it. */
  deferred: string[];
}

/**
 * Decides, from the saved positions, which partitions continue and which are replayed. `fresh` holds each
 * partition's new events (none for one only asked to replay), sorted here in time order. Saved storm states are
 * decoded, or taken from `states` where it kept the very state saved.
 */
export function planPartitions(
  fresh: ReadonlyMap<string, AnalysisEvent[]>,
  saved: ReadonlyMap<string, SavedPartition>,
  pending: ReadonlySet<string>,
  mustReplay: ReadonlySet<string>,
  states?: StormStateCache,
): GatePlan {
  const plan: GatePlan = { continuing: [], replay: [], deferred: [] };
  for (const [pk, events] of fresh) {
    events.sort(byTimeOrder);
    const row = saved.get(pk);
    const first = events[0];
    // A state of an earlier definition (migration storms_by_sender) decodes to null: the partition is replayed.
    const text = row?.storms ?? null;
    const storms = states === undefined ? decodeStormState(text) : states.take(pk, text);
    if (pending.has(pk)) plan.deferred.push(pk);
    else if (row === undefined || storms === null || first === undefined || mustReplay.has(pk) || !after(first, row)) {
      plan.replay.push(pk);
    } else {
      const eventKeys = events.map(attemptKeys);
      plan.continuing.push({ saved: row, storms, events, keys: keysOf(eventKeys), eventKeys });
    }
  }
  return plan;
}

/** Every gate key the attempts use: the only key states stepping them reads. */
function keysOf(eventKeys: readonly AttemptKeys[]): Set<string> {
  const keys = new Set<string>();
  for (const { request, endpoint, method } of eventKeys) {
    keys.add(request);
    keys.add(endpoint);
    if (method !== null) keys.add(method);
  }
  return keys;
}

/** The gate keys events use: the checkpoint's key states stepping them from it reads (`stepCheckpoint`, replays). */
export function keysUsed(events: readonly AnalysisEvent[]): Set<string> {
  return keysOf(events.map(attemptKeys));
}

/** The stored states of the keys the continuations use (KeyGateState as JSON), by request key; absent: nothing held. */
export type StoredKeys = ReadonlyMap<string, string>;

const NEEDED: VerdictCount = { avoidable: 0, reason: null };

/**
 * Steps each continuation on from its saved state and the stored states of the keys it uses. Fresh records are
 * stored needed, so only the avoidable ones are written.
 */
export function continuePartitions(
  continuing: readonly Continuation[],
  stored: StoredKeys,
  changes: GateChanges = noChanges(),
): GateChanges {
  for (const continuation of continuing) continuePartition(continuation, stored, changes);
  return changes;
}

function continuePartition(
  { saved, storms: savedStorms, events, keys, eventKeys }: Continuation,
  stored: StoredKeys,
  changes: GateChanges,
): void {
  const pk = saved.partition;
  const storms = new PartitionStorms(savedStorms);
  const kept = { partition: pk, from: saved, storms, events, eventKeys, keys };
  const partition = stepKept(kept, stored, changes.keys, (event, verdict) => {
    if (!verdict.avoidable) return;
    const { reason, blockedBy } = verdict;
    changes.verdicts.push({
      eventId: event.id,
      ts: event.ts,
      server: event.server,
      avoidable: true,
      reason,
      blockedBy,
    });
    changes.moved.push({ record: event, before: NEEDED, after: { avoidable: 1, reason } });
  });
  save(pk, partition, flushStorms(storms, changes), events[events.length - 1], changes);
}

/** Events to step on from a kept position (a saved partition's, or a checkpoint's), with their gate keys. */
interface KeptStep {
  partition: string;
  from: Pick<SavedPartition, 'waitUntil' | 'frontierTs'>;
  storms: PartitionStorms;
  /** In time order, all after `from`'s frontier. */
  events: readonly AnalysisEvent[];
  eventKeys: readonly AttemptKeys[];
  keys: ReadonlySet<string>;
}

/**
 * Steps events on from a kept position: the stored states of the keys they use, the throttle and the storm tracker.
 * Each verdict goes to `judged`; each key whose state changed joins `changedKeys`. Answers the partition's gate
 * state after them.
 */
function stepKept(
  { partition: pk, from, storms, events, eventKeys, keys }: KeptStep,
  stored: StoredKeys,
  changedKeys: KeyChange[],
  judged: (event: AnalysisEvent, verdict: GateVerdict) => void,
): PartitionGateState {
  const held: Record<string, KeyGateState> = {};
  for (const key of keys) {
    const state = stored.get(key);
    if (state !== undefined) held[key] = JSON.parse(state) as KeyGateState;
  }
  const gate = createGateState();
  // The frontier columns hold the order bookkeeping; seq is 0 on this path (events order by ts, then id).
  const partition: PartitionGateState = { keys: held, waitUntil: from.waitUntil, lastTs: from.frontierTs, lastSeq: 0 };
  gate.partitions[pk] = partition;
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as AnalysisEvent;
    const verdict = gateStep(gate, event, eventKeys[i]);
    storms.step(stormFact(event, verdict));
    judged(event, verdict);
  }
  for (const key of keys) {
    const now = partition.keys[key];
    const state = now === undefined ? null : JSON.stringify(now);
    if (state !== (stored.get(key) ?? null)) changedKeys.push({ partition: pk, key, state });
  }
  return partition;
}

/**
 * A partition's checkpoint about to step through the events a block packs (compaction's swap,
 * api/services/compaction.ts): those after its frontier in time order, each one's gate keys, and the keys whose
 * checkpoint states the step reads.
 */
export interface CheckpointStep {
  partition: string;
  saved: SavedCheckpoint | undefined;
  events: AnalysisEvent[];
  eventKeys: AttemptKeys[];
  keys: Set<string>;
}

/**
 * What stepping the checkpoint through a block's events of its partition reads. An event at or before the
 * frontier, a late one packed into a block of its own, is left out: the checkpoint has moved past it (ADR 21). Null
 * when no event is after the frontier.
 */
export function planCheckpoint(
  pk: string,
  saved: SavedCheckpoint | undefined,
  events: AnalysisEvent[],
): CheckpointStep | null {
  events.sort(byTimeOrder);
  const fresh = saved === undefined ? events : events.filter((event) => after(event, saved));
  if (fresh.length === 0) return null;
  const eventKeys = fresh.map(attemptKeys);
  return { partition: pk, saved, events: fresh, eventKeys, keys: keysOf(eventKeys) };
}

/** Steps the checkpoint from the stored states of the keys its events use: its new state and the key states changed. */
export function stepCheckpoint(
  { partition: pk, saved, events, eventKeys, keys }: CheckpointStep,
  stored: StoredKeys,
): { checkpoint: SavedCheckpoint; keys: KeyChange[] } {
  const last = events.at(-1) as AnalysisEvent;
  const [client, server] = JSON.parse(pk) as [string, string];
  const storms = new PartitionStorms(decodeStormState(saved?.storms ?? null) ?? createStormState(client, server));
  const changed: KeyChange[] = [];
  const from = saved ?? { waitUntil: null, frontierTs: (events[0] as AnalysisEvent).ts };
  const partition = stepKept({ partition: pk, from, storms, events, eventKeys, keys }, stored, changed, () => {});
  const final: FinalStorm[] = [
    ...(JSON.parse(saved?.finalStorms ?? '[]') as FinalStorm[]),
    ...storms.takeFinal().map((storm): FinalStorm => [storm.id, storm.firstTs]),
  ];
  const heldSince = keptFrom(storms.state, last.ts);
  return {
    checkpoint: {
      partition: pk,
      frontierTs: last.ts,
      frontierId: last.id,
      waitUntil: partition.waitUntil,
      storms: encodeStormState(storms.state),
      finalStorms: JSON.stringify(final.filter(([, firstTs]) => firstTs >= heldSince)),
    },
    keys: changed,
  };
}

/** Where the storms a replay from a checkpoint may rewrite begin: its tracker's earliest held attempt, or its frontier. */
function keptFrom(storms: PartitionStormState, frontierTs: number): number {
  return Math.min(heldFrom(storms) ?? frontierTs, frontierTs);
}

/** A stored event as a replay reads it: the event and the verdict stored on it. */
export interface StoredEvent {
  event: AnalysisEvent;
  avoidable: boolean;
  reason: string | null;
  blockedBy: string | null;
}

/** Where a step stands: the last event stepped, by (ts, id). */
type Frontier = Pick<AnalysisEvent, 'ts' | 'id'>;

/** A replay under way: the gate and storm state so far, and the last event stepped. */
export interface Replay {
  partition: string;
  gate: GateState;
  storms: PartitionStorms;
  last: Frontier | undefined;
  /**
   * From a checkpoint: the request keys whose checkpoint states the gate was handed (held, or found to hold nothing);
   * a key used later is handed its own before it is stepped. Null from the partition's first event: the gate holds
   * every key.
   */
  seeded: Set<string> | null;
}

/** A checkpoint a replay starts from, with the stored states of the keys of the events it steps (`storedEventKeys`). */
export interface CheckpointStart {
  saved: SavedCheckpoint;
  keys: StoredKeys;
}

/**
 * Replays a partition over its stored events (in any order; shadowed records included, whose verdicts are cleared):
 * from its first event, or from the checkpoint at the cold horizon when its older events are packed (ADR 21). From a
 * checkpoint, an event at or before its frontier (a late one older than the horizon) is not stepped: the checkpoint
 * has moved past it, and its verdict stays as stored. A verdict is written where it differs from the stored one, and
 * moves the counts when its record is counted (a shadowed record's counts came off when it was shadowed).
 */
export function replayPartition(
  pk: string,
  events: StoredEvent[],
  changes: GateChanges,
  checkpoint?: CheckpointStart,
): Replay {
  const [client, server] = JSON.parse(pk) as [string, string];
  const storms = checkpoint === undefined ? null : decodeStormState(checkpoint.saved.storms);
  if (checkpoint === undefined || storms === null) {
    const replay: Replay = {
      partition: pk,
      gate: createGateState(),
      storms: new PartitionStorms(createStormState(client, server)),
      last: undefined,
      seeded: null,
    };
    changes.replayed.push({ partition: pk, client, server, kept: null });
    stepStored(replay, events, changes);
    return replay;
  }
  const { saved } = checkpoint;
  const gate = createGateState();
  gate.partitions[pk] = { keys: {}, waitUntil: saved.waitUntil, lastTs: saved.frontierTs, lastSeq: 0 };
  const replay: Replay = {
    partition: pk,
    gate,
    storms: new PartitionStorms(storms),
    last: { ts: saved.frontierTs, id: saved.frontierId },
    seeded: new Set(),
  };
  const final = (JSON.parse(saved.finalStorms) as FinalStorm[]).map(([id]) => id);
  changes.replayed.push({ partition: pk, client, server, kept: { from: keptFrom(storms, saved.frontierTs), final } });
  const fresh = events.filter(({ event }) => after(event, saved));
  seed(replay, fresh, checkpoint.keys);
  stepStored(replay, fresh, changes);
  return replay;
}

/** Hands a replay from a checkpoint the checkpoint's states of the keys `events` use that it was not handed yet. */
function seed(replay: Replay, events: readonly StoredEvent[], stored: StoredKeys): void {
  const { seeded } = replay;
  const partition = replay.gate.partitions[replay.partition];
  if (seeded === null || partition === undefined) return;
  for (const key of keysUsed(events.map(({ event }) => event))) {
    if (seeded.has(key)) continue;
    seeded.add(key);
    const state = stored.get(key);
    if (state !== undefined) partition.keys[key] = JSON.parse(state) as KeyGateState;
  }
}

/**
 * Steps events folded since a replay read its partition on from where it ended; from a checkpoint, `keys` holds the
 * checkpoint's states of the keys they use. False, stepping none, when one comes before the replay's last event:
 * the replay is stale and is computed again.
 */
export function stepOn(
  replay: Replay,
  events: StoredEvent[],
  changes: GateChanges,
  keys: StoredKeys = new Map(),
): boolean {
  const { last } = replay;
  if (last !== undefined && events.some(({ event }) => !after(event, frontierOf(last)))) return false;
  seed(replay, events, keys);
  stepStored(replay, events, changes);
  return true;
}

/**
 * The state a replay ends in, filed for the partition to continue from; its keys are written afresh: all of them,
 * or from a checkpoint the ones it was handed (the store starts the others from the checkpoint's).
 */
export function finishReplay({ partition: pk, gate, storms, last, seeded }: Replay, changes: GateChanges): void {
  const partition = gate.partitions[pk];
  const held = partition?.keys ?? {};
  for (const key of seeded ?? Object.keys(held)) {
    const state = held[key];
    changes.keys.push({ partition: pk, key, state: state === undefined ? null : JSON.stringify(state) });
  }
  save(pk, partition, flushStorms(storms, changes), last, changes);
}

function stepStored(replay: Replay, events: StoredEvent[], changes: GateChanges): void {
  // Ordered here, not by SQL: PostgreSQL would sort ids by its collation, the frontier compares them as JS does.
  events.sort((a, b) => byTimeOrder(a.event, b.event));
  for (const stored of events) {
    const { event } = stored;
    replay.last = event;
    const verdict = gateStep(replay.gate, event);
    const { avoidable, reason, blockedBy } = verdict;
    if (isJudged(event)) replay.storms.step(stormFact(event, verdict));
    if (stored.avoidable === avoidable && stored.reason === reason && stored.blockedBy === blockedBy) continue;
    changes.verdicts.push({ eventId: event.id, ts: event.ts, server: event.server, avoidable, reason, blockedBy });
    // The old verdict comes off under its reason and the new one goes on under its own.
    if (event.counted) {
      changes.moved.push({
        record: event,
        before: { avoidable: stored.avoidable ? 1 : 0, reason: stored.reason },
        after: { avoidable: avoidable ? 1 : 0, reason },
      });
    }
  }
}

/** The storms a partition's steps found or changed join the changes; answers the tracker's state to save. */
function flushStorms(storms: PartitionStorms, changes: GateChanges): PartitionStormState {
  const { final, current, vanished } = storms.flush();
  for (const { attemptIds: _ids, avoidableIds: _avoidable, ...storm } of [...final, ...current]) {
    changes.storms.set(storm.id, storm);
  }
  for (const id of vanished) changes.vanished.push({ id, server: storms.state.server });
  return storms.state;
}

/** Files the partition's new saved position, where it has stepped an event, and the storm state it encodes. */
function save(
  pk: string,
  partition: PartitionGateState | undefined,
  storms: PartitionStormState,
  last: Frontier | undefined,
  changes: GateChanges,
): void {
  if (last === undefined) return;
  changes.partitions.push({
    partition: pk,
    waitUntil: partition?.waitUntil ?? null,
    frontierTs: last.ts,
    frontierId: last.id,
    storms: encodeStormState(storms),
  });
  changes.stormStates.set(pk, storms);
}

function frontierOf(event: Frontier): Pick<SavedPartition, 'frontierTs' | 'frontierId'> {
  return { frontierTs: event.ts, frontierId: event.id };
}

/** Whether `event` comes after a frontier in the order the gate steps: (ts, id). */
function after(event: AnalysisEvent, frontier: Pick<SavedPartition, 'frontierTs' | 'frontierId'>): boolean {
  return event.ts > frontier.frontierTs || (event.ts === frontier.frontierTs && event.id > frontier.frontierId);
}
