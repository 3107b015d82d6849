/**
 * The gate replay (DOMAIN.md section 6, seed 000): each client's traffic to each server, in time order, through
 * the gate a correct client would apply. An attempt the gate would not have let through is avoidable.
 *
 * Written as an incremental state machine so the ingest path can keep a partition's state between batches.
 *
 * Partition: (client, server). Every rule is about one client's traffic to one server (a key includes both, and a
 * throttle is "this client at this server"), so partitions are independent and may be replayed in any order.
 * Events of one partition must be stepped in (ts, seq) order; `gateStep` throws `GateOrderError` otherwise.
 *
 * Not judged (verdict `avoidable: false`, `reason: null`, state untouched):
 * - proxy records with `counted: false`: the client's record of the same request is judged instead, so a request
 *   seen by two observers is judged once;
 * - events without a `client` (a proxy line that names no client): they are nobody's conduct, so no rule about a
 *   client's conduct can apply to them.
 *
 * Rules, for a judged attempt with request key K in session S at time t:
 * - after_refusal: a refusal before blocks it. What a refusal blocks follows what it is a statement about
 *   (`GateBlock`): `not_declared` and 405 the endpoint (client + server + HTTP method + path) whatever the body;
 *   -32601 that JSON-RPC method at that path whatever the params; a session-scoped kind (`SESSION_SCOPED_KINDS`) K
 *   in S only, since its prescribed recovery, a new session, starts clean; any other refusal K. A refusal lapses at
 *   its `waitUntil` (`resetsAt`, or seed 002's TTL for its reason); without one it never does. A session-scoped
 *   block ignores lapses: it ends with its session.
 * - identical_after_ambiguous: K got an ambiguous answer before. "Abstain; never read ambiguity as permission to
 *   retry": K stays blocked like a refused key, with its own reason. Nothing lifts the block, because the only
 *   thing that could (a later answer to K) would come from an attempt the gate calls avoidable, and avoidable
 *   attempts change no state.
 * - before_retry_after: the client's last needed throttled answer from this server named `waitUntil` and t is
 *   before it. Any key. A throttled answer with `waitUntil: null` named no time, so it blocks nothing. A hidden
 *   throttle (an `ok` answer whose text says "rate limited, retry after N", DOMAIN.md section 8) is a throttled answer
 *   here; its verdicts are marked `readFromText`. It still succeeded for its own key: it ends a transient run.
 * - past_transient_budget: K has made 4 attempts (the first failure + the budget of 3 retries) since its first
 *   transient failure without a success; the 5th attempt on is avoidable. Every needed attempt of K counts,
 *   whatever it got (a throttled answer inside a run counts too: it is an attempt). A success ends the run; so do a
 *   refusal and an ambiguous answer, which block K outright. A throttled answer does not start a run: rate has its
 *   own rule. The budget does not refill with time: a correct client that spent it gave the request up.
 *
 * MCP 2026-07-28 (DOMAIN.md section 10), read per request's era:
 * - an input request (`pending`) clears no state; the key then awaits its answer: the round that carries it (a
 *   continuation) is part of the call, judged only against endpoint and method blocks and the throttle (avoidable
 *   when the round that asked was), while the call sent again without the answers ignores the input request
 *   (after_refusal: it cannot progress);
 * - the era probe a 2025-only server answered (`era_legacy`) blocks that probe: the client can keep the verdict;
 * - -32022 blocks the request key at the refused protocol version only, so the corrected request is needed; -32020
 *   blocks nothing, since no record says which header a re-send carried (the corrected one is the likely one);
 * - session-scoped refusals hold per session for 2025-era traffic only; a 2026-07-28 one blocks the request key.
 *
 * Precedence when several apply (the reason says which statement the client ignored first and most clearly):
 * after_refusal > identical_after_ambiguous > before_retry_after > past_transient_budget. Statements about the
 * request outrank statements about rate and the moment, and a typed refusal outranks an ambiguous answer.
 *
 * An avoidable attempt is avoidable whatever it got back (a lucky 200 included) and changes no gate state: a
 * correct client would never have sent it.
 */
import { SESSION_SCOPED_KINDS } from '../classify/kinds.ts';
import type { GateBlock, GateReason, GateVerdict } from './gate-types.ts';
import { type AttemptKeys, attemptKeys, endpointKey, methodKey, requestKey } from './request-key.ts';
import type { AnalysisEvent } from './types.ts';

/** Seed 000's `MAX_RETRIES`: retries allowed after the first transient failure. */
export const TRANSIENT_RETRY_BUDGET = 3;
/** The first failed attempt plus the retries: the 5th attempt on is avoidable. */
const ATTEMPTS_IN_BUDGET = TRANSIENT_RETRY_BUDGET + 1;

/**
 * What the gate holds about one request key. Absent fields mean "nothing": an entry exists only while one of
 * them is set, so the common case (a key that only ever succeeds) costs no state at all.
 */
export interface KeyGateState {
  /**
   * Set once the key was refused (not session-scoped) or answered ambiguously: every later attempt is avoidable,
   * until `until` for a refusal that lapses. Endpoint and method keys (`endpointKey`, `methodKey`) hold only this.
   */
  block?: 'after_refusal' | 'identical_after_ambiguous';
  /** Epoch ms at which an `after_refusal` block lapses; absent: it never does. */
  until?: number;
  /** Sessions in which the key got a session-scoped refusal (null: requests sent without a session). */
  sessions?: (string | null)[];
  /** Needed attempts since the key's first transient failure (that failure included), while the run is open. */
  transient?: number;
  /** With an `after_refusal` block from -32022: the refused protocol version, the only one the block holds for. */
  version?: string;
  /**
   * The key's last answer asked for input (MRTR) and no round has answered it yet. `avoidable` when the round that
   * asked was itself avoidable: a correct client would not have been asked, so neither is its answer needed.
   */
  awaiting?: { avoidable: boolean; reason?: GateReason; blockedBy?: GateBlock | null };
}

/**
 * One (client, server)'s gate. Plain JSON (records and arrays, no Map/Set) so that it can be stored as text.
 *
 * What grows: `keys` keeps an entry per key that is blocked (a refusal never lapses, so neither does its entry),
 * per key refused in some session (a client may come back to a dead session at any time, and a log never says a
 * session is gone for good: each such key lists its sessions), and per key in a transient run. A run's counter is
 * dropped when the run ends in a success, a refusal or an ambiguous answer, and the entry with it when nothing
 * else is left; a run that spent its budget stays, as it keeps the key's later attempts avoidable. `waitUntil`
 * is one number, cleared once it has elapsed.
 */
export interface PartitionGateState {
  /** (ts, seq) of the last event stepped: the order check. Bookkeeping, not a gate rule. */
  lastTs: number;
  lastSeq: number;
  /** Request key → what the gate holds about it. */
  keys: Record<string, KeyGateState>;
  /** Epoch ms before which any request of this client to this server is avoidable; null: no throttle. */
  waitUntil: number | null;
  /**
   * The wait was named by a hidden throttle's text (an `ok` answer), so its verdicts say so. Bookkeeping for the
   * verdict's mark only: a state restored without it judges the same, unmarked.
   */
  waitFromText?: true;
}

export interface GateState {
  /** Format of the stored state; bump it when the shape changes so stale states are replayed, not misread. */
  version: 1;
  /** `partitionKey(event)` → that partition's gate. */
  partitions: Record<string, PartitionGateState>;
}

/** Thrown by `gateStep` when an event is earlier in (ts, seq) than one already stepped in its partition. */
export class GateOrderError extends RangeError {
  override name = 'GateOrderError';
}

/**
 * Where a new partition keeps its keys. By default a plain record; a caller replaying more keys than memory holds
 * (the offline report over a huge log) may hand in records that spill to disk: the gate reads and writes them by
 * key only, never lists them.
 */
export type KeysFactory = () => Record<string, KeyGateState>;
const keysFactories = new WeakMap<GateState, KeysFactory>();

export function createGateState(keys?: KeysFactory): GateState {
  const state: GateState = { version: 1, partitions: {} };
  if (keys !== undefined) keysFactories.set(state, keys);
  return state;
}

/** Whether the gate judges `e` at all: a counted record of a named client. */
export function isJudged(e: AnalysisEvent): e is AnalysisEvent & { client: string } {
  return e.counted && e.client !== null;
}

/** The (client, server) partition of a judged event; null for events the gate does not judge. */
export function partitionKey(e: AnalysisEvent): string | null {
  return isJudged(e) ? JSON.stringify([e.client, e.server]) : null;
}

/** Whether `gateStep` would accept `e` now, i.e. it is not earlier than what its partition has seen. */
export function stepsInOrder(state: GateState, e: AnalysisEvent): boolean {
  const pk = partitionKey(e);
  const p = pk === null ? undefined : state.partitions[pk];
  return p === undefined || inOrder(p, e);
}

/** Time order with a total tie-break: (ts, seq, id). Sorting by it makes a replay independent of input order. */
export function byTimeOrder(a: AnalysisEvent, b: AnalysisEvent): number {
  return a.ts - b.ts || a.seq - b.seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function isSessionScoped(kind: string): boolean {
  return (SESSION_SCOPED_KINDS as readonly string[]).includes(kind);
}

/** -32020 and -32022: refusals of a header or a protocol version the request came with, repaired outside its identity. */
export function isRepairScoped(kind: string): boolean {
  return kind === 'protocol_header_mismatch' || kind === 'protocol_version_unsupported';
}

/**
 * Judges one event and updates `state` (unless the event is avoidable or not judged). `keys` are its gate keys when
 * the caller built them already (attemptKeys).
 */
export function gateStep(state: GateState, e: AnalysisEvent, keys?: AttemptKeys): GateVerdict {
  const pk = partitionKey(e);
  if (pk === null) return notJudged(e);
  let p = state.partitions[pk];
  if (p === undefined) {
    p = emptyPartition(e);
    const keys = keysFactories.get(state);
    if (keys !== undefined) p.keys = keys();
    state.partitions[pk] = p;
  } else if (!inOrder(p, e)) {
    throw new GateOrderError(`event ${e.id} (ts ${e.ts}, seq ${e.seq}) is earlier than its partition's last`);
  }
  return stepPartition(p, e, keys ?? attemptKeys(e));
}

/**
 * Verdicts for a set of events, keyed by event id: groups by partition, sorts each by (ts, seq, id) and replays.
 * The result does not depend on the order of `events`. Ids are assumed unique (the store guarantees it).
 */
export function replayGate(events: readonly AnalysisEvent[]): Map<string, GateVerdict> {
  const verdicts = new Map<string, GateVerdict>();
  // client → server → events; nested maps spare building a partition key string per event.
  const clients = new Map<string, Map<string, AnalysisEvent[]>>();
  for (const e of events) {
    if (!isJudged(e)) {
      verdicts.set(e.id, notJudged(e));
      continue;
    }
    let servers = clients.get(e.client);
    if (servers === undefined) {
      servers = new Map();
      clients.set(e.client, servers);
    }
    const group = servers.get(e.server);
    if (group === undefined) servers.set(e.server, [e]);
    else group.push(e);
  }
  for (const servers of clients.values()) {
    for (const group of servers.values()) {
      group.sort(byTimeOrder);
      // A partition's state is garbage as soon as its replay ends; sorted input needs no order check.
      const p = emptyPartition(group[0] ?? { ts: 0, seq: 0 });
      for (const e of group) verdicts.set(e.id, stepPartition(p, e, attemptKeys(e)));
    }
  }
  return verdicts;
}

function notJudged(e: AnalysisEvent): GateVerdict {
  return { id: e.id, key: requestKey(e), avoidable: false, reason: null, blockedBy: null };
}

function inOrder(p: PartitionGateState, e: AnalysisEvent): boolean {
  return e.ts > p.lastTs || (e.ts === p.lastTs && e.seq >= p.lastSeq);
}

function emptyPartition(first: Pick<AnalysisEvent, 'ts' | 'seq'>): PartitionGateState {
  return { lastTs: first.ts, lastSeq: first.seq, keys: {}, waitUntil: null };
}

/** The gate proper, for one event of the partition `p`, in order. */
function stepPartition(p: PartitionGateState, e: AnalysisEvent, keys: AttemptKeys): GateVerdict {
  p.lastTs = e.ts;
  p.lastSeq = e.seq;
  // Events arrive in order, so an elapsed throttle or a lapsed block can block nothing again.
  if (p.waitUntil !== null && e.ts >= p.waitUntil) {
    p.waitUntil = null;
    delete p.waitFromText;
  }
  const endpoint = liveBlock(p, keys.endpoint, e.ts);
  const { method, request: key } = keys;
  const k = p.keys[key];
  const held: Held = { endpoint, method: method === null ? false : liveBlock(p, method, e.ts), k };
  const awaited = e.continuation ? k?.awaiting : undefined;
  if (awaited !== undefined && k !== undefined) return stepContinuation(p, key, k, awaited, held, e);
  const block = blockingRule(p, held, e);
  if (block !== null) {
    // The one thing an avoidable attempt leaves: a round that asks for input, so that its answer is judged with it
    // (unless a needed input request is still open: the answer a correct client sends is to that one).
    if (e.bucket === 'pending' && k?.awaiting?.avoidable !== false) {
      p.keys[key] = { ...(k ?? {}), awaiting: { avoidable: true, ...block } };
    }
    return { id: e.id, key, avoidable: true, ...block };
  }
  record(p, key, k, e);
  return { id: e.id, key, avoidable: false, reason: null, blockedBy: null };
}

/**
 * A round answering the input request its call's last round made: part of the call, not a retry of it. Only the
 * blocks of its endpoint and method and the throttle apply; it is avoidable when the round that asked was.
 */
function stepContinuation(
  p: PartitionGateState,
  key: string,
  k: KeyGateState,
  awaited: NonNullable<KeyGateState['awaiting']>,
  held: Held,
  e: AnalysisEvent,
): GateVerdict {
  delete k.awaiting;
  if (awaited.avoidable && awaited.reason !== undefined) {
    if (e.bucket === 'pending') k.awaiting = awaited;
    dropIfEmpty(p, key, k);
    return { id: e.id, key, avoidable: true, reason: awaited.reason, blockedBy: awaited.blockedBy ?? null };
  }
  const block = blockingRule(p, { ...held, k: undefined }, e);
  if (block !== null) {
    dropIfEmpty(p, key, k);
    return { id: e.id, key, avoidable: true, ...block };
  }
  record(p, key, k, e);
  return { id: e.id, key, avoidable: false, reason: null, blockedBy: null };
}

/** Whether an endpoint or method key blocks at `t`; a lapsed block is dropped on the way. */
function liveBlock(p: PartitionGateState, key: string, t: number): boolean {
  const held = p.keys[key];
  if (held === undefined) return false;
  if (blocksAt(held, t)) return true;
  delete p.keys[key];
  return false;
}

function blocksAt(held: KeyGateState, t: number): boolean {
  return held.block === 'after_refusal' && standsAt(held.until ?? null, t);
}

/** A key block holds for the attempt: it stands at its time, and a -32022 block only at the refused version. */
function blocksAttempt(held: KeyGateState, e: AnalysisEvent): boolean {
  return blocksAt(held, e.ts) && (held.version === undefined || held.version === e.protocolVersion);
}

/**
 * When a refusal lapses (DOMAIN.md section 6): its `waitUntil` (`resetsAt`, or seed 002's TTL for its reason), when
 * that is after the refusal; null: it never does. A time already past named no lapse the refusal could wait for.
 */
export function refusalLapse(refusal: Pick<AnalysisEvent, 'ts' | 'waitUntil'>): number | null {
  return refusal.waitUntil !== null && refusal.waitUntil > refusal.ts ? refusal.waitUntil : null;
}

/** Whether a refusal that lapses at `lapse` (null: never) still stands at `t`. */
export function standsAt(lapse: number | null, t: number): boolean {
  return lapse === null || t < lapse;
}

interface Held {
  endpoint: boolean;
  method: boolean;
  k: KeyGateState | undefined;
}

/** The rules in precedence order; the first that applies is the reason, with the block it found. */
function blockingRule(
  p: PartitionGateState,
  { endpoint, method, k }: Held,
  e: AnalysisEvent,
): { reason: GateReason; blockedBy: GateBlock | null; readFromText?: true } | null {
  if (endpoint) return { reason: 'after_refusal', blockedBy: 'endpoint' };
  if (method) return { reason: 'after_refusal', blockedBy: 'method' };
  if (k !== undefined && blocksAttempt(k, e)) return { reason: 'after_refusal', blockedBy: 'key' };
  if (k?.sessions?.includes(e.session) === true) return { reason: 'after_refusal', blockedBy: 'session' };
  // The call sent again without the answers its input request asked for cannot progress (DOMAIN.md section 10).
  if (k?.awaiting !== undefined && !k.awaiting.avoidable) return { reason: 'after_refusal', blockedBy: 'key' };
  if (k?.block === 'identical_after_ambiguous') return { reason: 'identical_after_ambiguous', blockedBy: 'key' };
  if (p.waitUntil !== null && e.ts < p.waitUntil) {
    return { reason: 'before_retry_after', blockedBy: null, ...(p.waitFromText && { readFromText: true }) };
  }
  if ((k?.transient ?? 0) >= ATTEMPTS_IN_BUDGET) return { reason: 'past_transient_budget', blockedBy: 'key' };
  return null;
}

/**
 * What a refusal blocks (GateBlock): what the refusal is a statement about. Sessions exist in the 2025 era only: a
 * 2026-07-28 request's session-scoped refusal blocks its request key.
 */
export function refusalBlock(e: AnalysisEvent): GateBlock {
  if (e.kind === 'not_declared' || e.httpStatus === 405) return 'endpoint';
  if (e.kind === 'not_supported' && e.rpcMethod !== null) return 'method';
  return isSessionScoped(e.kind) && e.era !== '2026' ? 'session' : 'key';
}

/** What a needed attempt's answer teaches the gate. */
function record(p: PartitionGateState, key: string, found: KeyGateState | undefined, e: AnalysisEvent): void {
  // A request whose log shows no outcome teaches the gate nothing (ADR 18).
  if (e.bucket === 'unknown') return;
  if (e.bucket === 'pending') {
    // An input request clears nothing and opens nothing but the wait for its answer.
    p.keys[key] = { ...(found ?? {}), awaiting: { avoidable: false } };
    return;
  }
  if (e.kind === 'era_legacy') {
    // The server showed itself 2025-only: the probe need not be sent again. Its answer is no failure.
    p.keys[key] = { ...(found ?? {}), block: 'after_refusal' };
    return;
  }
  if (e.bucket === 'throttled') {
    // Counts as an attempt of an open run, but does not open one: rate has its own rule.
    if (found?.transient !== undefined) found.transient++;
    // A time already past (or none) asks for no wait.
    p.waitUntil = e.waitUntil !== null && e.waitUntil > e.ts ? e.waitUntil : null;
    delete p.waitFromText;
    return;
  }
  // A hidden throttle: a success for its key, and a wait for the partition, read from its text.
  if (e.bucket === 'ok' && e.waitUntil !== null && e.waitUntil > e.ts) {
    p.waitUntil = e.waitUntil;
    p.waitFromText = true;
  }
  if (e.bucket === 'ok' && found === undefined) return;
  const k = found ?? {};
  // A refusal still on the key has lapsed (or held at another protocol version only), or this attempt would not have
  // been needed: the new answer replaces it.
  if (k.block === 'after_refusal') {
    delete k.block;
    delete k.until;
    delete k.version;
  }
  if (e.bucket === 'transient') k.transient = (k.transient ?? 0) + 1;
  // Any other answer ends the run: a success resets it, a refusal or an ambiguous answer blocks the key instead.
  else delete k.transient;
  if (e.bucket === 'ambiguous') k.block = 'identical_after_ambiguous';
  if (e.bucket === 'refusal') recordRefusal(p, k, e);
  dropIfEmpty(p, key, k);
}

/** Files the key's state, or drops its entry when it holds nothing. */
function dropIfEmpty(p: PartitionGateState, key: string, k: KeyGateState): void {
  const empty =
    k.block === undefined && k.sessions === undefined && k.transient === undefined && k.awaiting === undefined;
  if (empty) delete p.keys[key];
  else p.keys[key] = k;
}

function recordRefusal(p: PartitionGateState, k: KeyGateState, e: AnalysisEvent): void {
  const lapse = refusalLapse(e);
  const lapses = lapse === null ? {} : { until: lapse };
  // -32020: which header the request carried is in no record, so a re-send cannot be told from the repair.
  if (e.kind === 'protocol_header_mismatch') return;
  const block = refusalBlock(e);
  const version =
    e.kind === 'protocol_version_unsupported' && e.protocolVersion !== null ? { version: e.protocolVersion } : {};
  if (block === 'key') Object.assign(k, { block: 'after_refusal', ...lapses, ...version });
  else if (block === 'session') {
    if (k.sessions?.includes(e.session) !== true) k.sessions = [...(k.sessions ?? []), e.session];
  } else {
    const held = block === 'endpoint' ? endpointKey(e) : (methodKey(e) as string);
    p.keys[held] = { block: 'after_refusal', ...lapses };
  }
}
