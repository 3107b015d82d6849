/**
 * Retry storms (DOMAIN.md section 6) over a set of events, with each storm's attempt-by-attempt timeline, and the
 * avoidable-request summary. Pure: the caller replays the gate (`replayGate`) and passes its verdicts in; an event
 * without a verdict counts as needed. The storms are those of shared/analysis/storm-tracker.ts, which the ingest
 * path and the offline report step one event at a time: one definition.
 *
 * Only a sender's conduct is examined: proxy records shadowed by a client record (`counted: false`) and events
 * without a `client` are left out, as they are by the gate.
 */

import { byTimeOrder, isJudged, isSessionScoped, refusalBlock, TRANSIENT_RETRY_BUDGET } from './gate.ts';
import type { GateBlock, GateReason, GateVerdict } from './gate-types.ts';
import { endpointKey, endpointLabel, methodKey, requestKey } from './request-key.ts';
import { stormFact } from './storm-facts.ts';
import { byStormOrder, type Storm, type StormAttempt } from './storm-model.ts';
import { createStormState, PartitionStorms, STORM_DEFAULTS, type StormOptions } from './storm-tracker.ts';
import { addAvoidable, avoidableRows, createAvoidableTallies } from './stream-avoidable.ts';
import type { AnalysisEvent } from './types.ts';

type KeyOf = (e: AnalysisEvent) => string;

/** Every storm in the events, ordered by first attempt, each with its timeline. */
export function detectStorms(
  events: readonly AnalysisEvent[],
  verdicts: ReadonlyMap<string, GateVerdict>,
  options: StormOptions = {},
): Storm[] {
  const { gapMs, probeWindowMs } = { ...STORM_DEFAULTS, ...options };
  // The verdict carries the key already; computing it again is the costliest part of a pass.
  const keyOf: KeyOf = (e) => verdicts.get(e.id)?.key ?? requestKey(e);
  const storms: Storm[] = [];
  for (const partition of partitions(events)) {
    const [first] = partition;
    if (first === undefined || first.client === null) continue;
    const tracker = new PartitionStorms(createStormState(first.client, first.server, true), { gapMs, probeWindowMs });
    for (const e of partition) {
      tracker.step(stormFact(e, { key: keyOf(e), avoidable: verdicts.get(e.id)?.avoidable === true }));
    }
    const { final, current } = tracker.flush();
    const found = [...final, ...current];
    if (found.length === 0) continue;
    const explain = timelines(partition, verdicts, keyOf);
    for (const { attemptIds = [], avoidableIds: _avoidable, ...storm } of found) {
      storms.push({ ...storm, timeline: explain(attemptIds) });
    }
  }
  return storms.sort(byStormOrder);
}

/** The judged events of each (client, server), each in time order. */
function partitions(events: readonly AnalysisEvent[]): AnalysisEvent[][] {
  const byPair = new Map<string, AnalysisEvent[]>();
  for (const e of events) {
    if (!isJudged(e)) continue;
    const pk = JSON.stringify([e.client, e.server]);
    const list = byPair.get(pk);
    if (list === undefined) byPair.set(pk, [e]);
    else list.push(e);
  }
  const all = [...byPair.values()];
  for (const list of all) list.sort(byTimeOrder);
  return all;
}

/**
 * The timeline of attempts by id, from their partition's events in time order (from early enough before them that
 * the refusals their verdicts follow are among them) and the gate's verdicts.
 */
export function timelines(
  events: readonly AnalysisEvent[],
  verdicts: ReadonlyMap<string, GateVerdict>,
  keyOf: KeyOf = (e) => verdicts.get(e.id)?.key ?? requestKey(e),
): (ids: readonly string[]) => StormAttempt[] {
  const gate = explainGate(events, verdicts, keyOf);
  const byId = new Map(events.map((e) => [e.id, e]));
  return (ids) =>
    ids.flatMap((id) => {
      const e = byId.get(id);
      return e === undefined ? [] : [attemptOf(e, verdicts.get(id), gate.get(id) ?? '')];
    });
}

function attemptOf(e: AnalysisEvent, verdict: GateVerdict | undefined, gate: string): StormAttempt {
  const avoidable = verdict?.avoidable === true;
  const { id, ts, rpcMethod, httpStatus: status, rpcCode, answered, latencyMs, bucket, kind, rule } = e;
  const blockedBy = avoidable ? (verdict?.blockedBy ?? null) : null;
  return { id, ts, rpcMethod, status, rpcCode, answered, latencyMs, bucket, kind, rule, avoidable, blockedBy, gate };
}

/** What the gate knew about one key when an attempt came: the answers that explain a verdict. */
interface KeyMemory {
  /** The last needed attempt. */
  last: AnalysisEvent | null;
  refusal: AnalysisEvent | null;
  ambiguous: AnalysisEvent | null;
  /** The first transient failure of the open run, and the needed attempts since (it included). */
  runStart: AnalysisEvent | null;
  run: number;
}

interface GateMemory {
  keys: Map<string, KeyMemory>;
  /** `endpointKey` / `methodKey` → the refusal that blocked it. */
  blocks: Map<string, AnalysisEvent>;
  /** `sessionBlockKey(key, session)` → the session-scoped refusal. */
  sessionRefusals: Map<string, AnalysisEvent>;
  /** The last needed throttled answer, or hidden throttle. */
  throttle: AnalysisEvent | null;
}

/**
 * The `gate` text of every attempt of a partition. It follows the verdicts it is given (it does not judge again)
 * and remembers, as the gate does, only what needed attempts taught: that is what a correct client had heard.
 */
function explainGate(
  events: readonly AnalysisEvent[],
  verdicts: ReadonlyMap<string, GateVerdict>,
  keyOf: KeyOf,
): Map<string, string> {
  const memory: GateMemory = { keys: new Map(), blocks: new Map(), sessionRefusals: new Map(), throttle: null };
  const texts = new Map<string, string>();
  for (const e of events) {
    const key = keyOf(e);
    let k = memory.keys.get(key);
    if (k === undefined) {
      k = { last: null, refusal: null, ambiguous: null, runStart: null, run: 0 };
      memory.keys.set(key, k);
    }
    const verdict = verdicts.get(e.id);
    if (verdict?.avoidable === true && verdict.reason !== null) {
      const block = blockOf(memory, verdict.blockedBy, e);
      if (block !== null) {
        texts.set(e.id, block);
        continue;
      }
      const sessionRefusal = memory.sessionRefusals.get(sessionBlockKey(key, e.session));
      texts.set(e.id, notSent(verdict.reason, e, k, sessionRefusal, memory.throttle));
      continue;
    }
    texts.set(e.id, sent(e, k));
    remember(memory, k, key, e);
  }
  return texts;
}

/** The text of an endpoint or method block, naming the refusal that set it; null for the other blocks. */
function blockOf(m: GateMemory, blockedBy: GateBlock | null, e: AnalysisEvent): string | null {
  if (blockedBy === 'endpoint') {
    const refusal = m.blocks.get(endpointKey(e));
    const at = refusal === undefined ? '' : ` (${refusal.kind}) at ${hms(refusal.ts)}`;
    return `not sent: the endpoint ${endpointLabel({ ...e, rpcMethod: null })} was refused${at}, whatever the body`;
  }
  const method = methodKey(e);
  if (blockedBy !== 'method' || method === null) return null;
  const refusal = m.blocks.get(method);
  const at = refusal === undefined ? '' : ` at ${hms(refusal.ts)}`;
  return `not sent: the method ${e.rpcMethod} was not found on this path${at}, whatever the params`;
}

function notSent(
  reason: GateReason,
  e: AnalysisEvent,
  k: KeyMemory,
  sessionRefusal: AnalysisEvent | undefined,
  throttle: AnalysisEvent | null,
): string {
  switch (reason) {
    case 'after_refusal':
      if (k.refusal !== null) return `not sent: the key was refused (${k.refusal.kind}) at ${hms(k.refusal.ts)}`;
      if (sessionRefusal === undefined) return 'not sent: the key was refused before';
      return (
        `not sent: the key was refused in this session (${sessionRefusal.kind}) at ${hms(sessionRefusal.ts)}; ` +
        'a new session starts clean'
      );
    case 'identical_after_ambiguous':
      if (k.ambiguous === null) return 'not sent: the key got an ambiguous answer before; abstain';
      return `not sent: the key got an ambiguous answer (${k.ambiguous.kind}) at ${hms(k.ambiguous.ts)}; abstain`;
    case 'before_retry_after': {
      const wait = throttle?.waitUntil ?? null;
      if (throttle === null || wait === null || wait <= e.ts) return 'not sent: the server had asked it to wait';
      if (throttle.bucket === 'ok') {
        return `not sent: the server's answer at ${hms(throttle.ts)} said in its text that this client was rate limited until ${hms(wait)}`;
      }
      return `not sent: the server throttled this client at ${hms(throttle.ts)} until ${hms(wait)}`;
    }
    case 'past_transient_budget': {
      const spent = `not sent: the ${TRANSIENT_RETRY_BUDGET} retries`;
      if (k.runStart === null) return `${spent} were spent`;
      return `${spent} after the transient failure at ${hms(k.runStart.ts)} were spent`;
    }
  }
}

function sent(e: AnalysisEvent, k: KeyMemory): string {
  const last = k.last;
  if (last === null) return 'sent: first attempt';
  if (k.runStart !== null && k.run > 0) {
    return `sent: retry ${k.run} of ${TRANSIENT_RETRY_BUDGET} after the transient failure at ${hms(k.runStart.ts)}`;
  }
  if (last.bucket === 'ok') return 'sent: the previous attempt succeeded';
  if (last.bucket === 'throttled') {
    if (last.waitUntil === null) return `sent: the throttled answer at ${hms(last.ts)} named no time to wait`;
    return `sent: the wait until ${hms(last.waitUntil)} had elapsed`;
  }
  if (last.bucket === 'refusal' && isSessionScoped(last.kind) && last.session !== e.session) {
    return `sent: a new session after the session refusal at ${hms(last.ts)}`;
  }
  return 'sent: nothing the client had heard forbade it';
}

/** Mirrors the gate's own state changes, keeping the answers themselves for the texts. */
function remember(m: GateMemory, k: KeyMemory, key: string, e: AnalysisEvent): void {
  k.last = e;
  if (e.bucket === 'transient') {
    if (k.run === 0) k.runStart = e;
    k.run++;
    return;
  }
  if (e.bucket === 'throttled') {
    if (k.run > 0) k.run++;
    m.throttle = e;
    return;
  }
  k.run = 0;
  k.runStart = null;
  // A hidden throttle (DOMAIN.md section 8): a success for its key, a wait read from its text for the partition.
  if (e.bucket === 'ok' && e.waitUntil !== null && e.waitUntil > e.ts) m.throttle = e;
  if (e.bucket === 'ambiguous') k.ambiguous = e;
  if (e.bucket !== 'refusal') return;
  const block = refusalBlock(e);
  if (block === 'endpoint') m.blocks.set(endpointKey(e), e);
  else if (block === 'method') m.blocks.set(methodKey(e) as string, e);
  else if (block === 'session') m.sessionRefusals.set(sessionBlockKey(key, e.session), e);
  else k.refusal = e;
}

export interface AvoidableCount {
  /** Counted requests (a request seen by a client and a proxy is one). */
  requests: number;
  avoidable: number;
  /** avoidable / requests (shared/share.ts). */
  share: number | null;
}

export interface AvoidableSummary {
  byClient: ({ client: string } & AvoidableCount)[];
  /** Includes counted requests that name no client: they went to the server, though the gate never blames them. */
  byServer: ({ server: string } & AvoidableCount)[];
  byPair: ({ client: string; server: string } & AvoidableCount)[];
}

/** Requests and avoidable requests per client, per server and per (client, server), most avoidable first. */
export function summariseAvoidable(
  events: readonly AnalysisEvent[],
  verdicts: ReadonlyMap<string, GateVerdict>,
): AvoidableSummary {
  const tallies = createAvoidableTallies();
  for (const e of events) addAvoidable(tallies, e, verdicts.get(e.id));
  return avoidableRows(tallies);
}

/** JSON, so that a null session and a session named "null" stay apart. */
function sessionBlockKey(key: string, session: string | null): string {
  return JSON.stringify([key, session]);
}

function hms(ts: number): string {
  return new Date(ts).toISOString().slice(11, 19);
}
