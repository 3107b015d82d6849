/**
 * Retry loops and probe storms (DOMAIN.md section 6), read off a client's traffic and the gate's verdicts, and the
 * avoidable-request summary. Pure: the caller replays the gate (`replayGate`) and passes its verdicts in; an event
 * without a verdict counts as needed.
 *
 * Only a client's conduct is examined: proxy records shadowed by a client record (`counted: false`) and events
 * without a `client` are left out, as they are by the gate.
 */

import type { Bucket } from '../classify/types.ts';
import { byTimeOrder, isJudged, isSessionScoped, refusalBlock, TRANSIENT_RETRY_BUDGET } from './gate.ts';
import type { GateBlock, GateReason, GateVerdict } from './gate-types.ts';
import { endpointKey, endpointLabel, methodKey, requestKey } from './request-key.ts';
import { addAvoidable, avoidableRows, createAvoidableTallies } from './stream-avoidable.ts';
import type { AnalysisEvent } from './types.ts';

export interface StormOptions {
  /** A retry loop ends at the first gap between attempts longer than this. */
  loopGapMs?: number;
  /** A probe storm needs its refusals within a window this long. */
  probeWindowMs?: number;
  /** ... at least this many refusals ... */
  probeMinRefusals?: number;
  /** ... touching at least this many distinct request keys. */
  probeMinKeys?: number;
}

export const STORM_DEFAULTS: Readonly<Required<StormOptions>> = {
  loopGapMs: 60_000,
  probeWindowMs: 300_000,
  probeMinRefusals: 5,
  probeMinKeys: 2,
};

export type StormKind = 'retry_loop' | 'probe_storm';

export interface StormAttempt {
  id: string;
  ts: number;
  status: number | null;
  rpcCode: number | null;
  latencyMs: number | null;
  bucket: Bucket;
  kind: string;
  avoidable: boolean;
  /** Which block made it avoidable (GateBlock: endpoint, method, key, session); null when sent or throttled. */
  blockedBy: GateBlock | null;
  /**
   * What a correct client would have done, in plain words: "sent: first attempt", "not sent: the key was refused
   * (not_declared) at 10:00:01". Times are UTC, HH:MM:SS.
   */
  gate: string;
}

export interface Storm {
  /** Stable: a digest of kind, client, server and the first attempt's id. */
  id: string;
  kind: StormKind;
  client: string;
  server: string;
  /** The request key of a retry loop; null for a probe storm, which spans keys. */
  key: string | null;
  /** Probe storm: the distinct `METHOD /path` that were refused, in first-seen order. Retry loop: its one path. */
  paths: string[];
  attempts: number;
  avoidable: number;
  firstTs: number;
  lastTs: number;
  /** The answer that started it: a loop's first attempt, a probe storm's first refusal. */
  firstFailure: { bucket: Bucket; kind: string };
  timeline: StormAttempt[];
}

/** A storm as lists show it: everything but its attempt-by-attempt timeline. */
export type StormSummary = Omit<Storm, 'timeline'>;

/** A storm whose last attempt is this recent is still going on, as far as anyone can tell at 3 a.m. */
export const STORM_ACTIVE_MS = 10 * 60_000;

export function isActiveStorm(storm: Pick<StormSummary, 'lastTs'>, now: number): boolean {
  return storm.lastTs >= now - STORM_ACTIVE_MS;
}

/**
 * How a storm list is ordered: `first` by first attempt (the detector's order), `rank` active storms first, then
 * the most avoidable attempts, then the most recent (what to look at first), `newest` by latest start.
 */
export const STORM_ORDERS = ['first', 'rank', 'newest'] as const;
export type StormOrder = (typeof STORM_ORDERS)[number];

type NonEmpty<T> = readonly [T, ...T[]];
type KeyOf = (e: AnalysisEvent) => string;

interface Found {
  kind: StormKind;
  key: string | null;
  paths: string[];
  attempts: NonEmpty<AnalysisEvent>;
}

interface ClientPartition {
  client: string;
  server: string;
  /** Counted events, in (ts, seq, id) order. */
  events: AnalysisEvent[];
}

/**
 * Retry loops and probe storms, ordered by first attempt. Both kinds may cover the same attempts: a prober that
 * repeats one path within a minute is in a retry loop on that path and in the probe storm.
 */
export function detectStorms(
  events: readonly AnalysisEvent[],
  verdicts: ReadonlyMap<string, GateVerdict>,
  options: StormOptions = {},
): Storm[] {
  const o = resolveStormOptions(options);
  // The verdict carries the key already; computing it again is the costliest part of a pass.
  const keyOf: KeyOf = (e) => verdicts.get(e.id)?.key ?? requestKey(e);
  const storms: Storm[] = [];
  for (const p of clientPartitions(events)) {
    const found = [...retryLoops(p.events, o.loopGapMs, keyOf), ...probeStorms(p.events, o, keyOf)];
    if (found.length === 0) continue;
    const gate = explainGate(p.events, verdicts, keyOf);
    for (const f of found) storms.push(buildStorm(p, f, verdicts, gate));
  }
  return storms.sort(byStormOrder);
}

/** Lists order storms by first attempt, then kind, then id: a total order, whatever found them. */
export function byStormOrder(a: StormSummary, b: StormSummary): number {
  return a.firstTs - b.firstTs || compareText(a.kind, b.kind) || compareText(a.id, b.id);
}

function resolveStormOptions(options: StormOptions): Required<StormOptions> {
  const o: Required<StormOptions> = {
    loopGapMs: options.loopGapMs ?? STORM_DEFAULTS.loopGapMs,
    probeWindowMs: options.probeWindowMs ?? STORM_DEFAULTS.probeWindowMs,
    probeMinRefusals: options.probeMinRefusals ?? STORM_DEFAULTS.probeMinRefusals,
    probeMinKeys: options.probeMinKeys ?? STORM_DEFAULTS.probeMinKeys,
  };
  for (const [name, value] of Object.entries(o)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0`);
  }
  return o;
}

function clientPartitions(events: readonly AnalysisEvent[]): ClientPartition[] {
  const partitions: ClientPartition[] = [];
  const clients = new Map<string, Map<string, ClientPartition>>();
  for (const e of events) {
    if (!isJudged(e)) continue;
    let servers = clients.get(e.client);
    if (servers === undefined) {
      servers = new Map();
      clients.set(e.client, servers);
    }
    const p = servers.get(e.server);
    if (p !== undefined) {
      p.events.push(e);
      continue;
    }
    const created = { client: e.client, server: e.server, events: [e] };
    servers.set(e.server, created);
    partitions.push(created);
  }
  for (const p of partitions) p.events.sort(byTimeOrder);
  return partitions;
}

/**
 * Retry loop: consecutive attempts of one key, each within `gapMs` of the one before, starting at a failed
 * attempt, at least 2 attempts. It ends at the first longer gap, and also at a success (included): the attempts
 * after a success are new requests, not retries, and a key polled every few seconds must not read as a loop.
 */
function retryLoops(events: readonly AnalysisEvent[], gapMs: number, keyOf: KeyOf): Found[] {
  const byKey = new Map<string, AnalysisEvent[]>();
  for (const e of events) {
    const key = keyOf(e);
    const attempts = byKey.get(key);
    if (attempts === undefined) byKey.set(key, [e]);
    else attempts.push(e);
  }
  const found: Found[] = [];
  for (const [key, attempts] of byKey) {
    for (const loop of loopsOfKey(attempts, gapMs)) {
      found.push({ kind: 'retry_loop', key, paths: [endpointLabel(loop[0])], attempts: loop });
    }
  }
  return found;
}

function loopsOfKey(attempts: readonly AnalysisEvent[], gapMs: number): NonEmpty<AnalysisEvent>[] {
  const loops: NonEmpty<AnalysisEvent>[] = [];
  let run: AnalysisEvent[] = [];
  const close = () => {
    const [first, ...rest] = run;
    if (first !== undefined && rest.length > 0) loops.push([first, ...rest]);
  };
  for (const e of attempts) {
    const last = run.at(-1);
    if (last !== undefined && last.bucket !== 'ok' && e.ts - last.ts <= gapMs) {
      run.push(e);
      continue;
    }
    close();
    run = e.bucket === 'ok' ? [] : [e];
  }
  close();
  return loops;
}

/**
 * Probe storm: windows of `probeWindowMs` holding >= `probeMinRefusals` refusals over >= `probeMinKeys` keys,
 * found with a sliding window over the refusals; windows that overlap merge into one storm. Its attempts are all
 * of the client's requests to the server from the first refusal of the run to the last, refused or not.
 */
function probeStorms(events: readonly AnalysisEvent[], o: Required<StormOptions>, keyOf: KeyOf): Found[] {
  const refusals = events.filter((e) => e.bucket === 'refusal');
  const found: Found[] = [];
  // Spans are disjoint and in time order, like the events: one sweep collects every span's attempts.
  let next = 0;
  for (const [start, end] of probeSpans(refusals, o, keyOf)) {
    const inSpan: AnalysisEvent[] = [];
    for (let e = events[next]; e !== undefined && e.ts <= end; e = events[++next]) {
      if (e.ts >= start) inSpan.push(e);
    }
    const [first, ...rest] = inSpan;
    if (first === undefined) continue;
    const attempts: NonEmpty<AnalysisEvent> = [first, ...rest];
    const paths = [...new Set(attempts.filter((e) => e.bucket === 'refusal').map(endpointLabel))];
    found.push({ kind: 'probe_storm', key: null, paths, attempts });
  }
  return found;
}

/** [firstTs, lastTs] of each merged run of qualifying windows. `refusals` are in time order. */
function probeSpans(refusals: readonly AnalysisEvent[], o: Required<StormOptions>, keyOf: KeyOf): [number, number][] {
  const keys = refusals.map(keyOf);
  const times = refusals.map((e) => e.ts);
  const inWindow = new Map<string, number>();
  const spans: [number, number][] = [];
  let left = 0;
  for (const [right, key] of keys.entries()) {
    // The fallbacks never apply (indices stay in range); they spare the types an assertion.
    const end = times[right] ?? 0;
    inWindow.set(key, (inWindow.get(key) ?? 0) + 1);
    while (end - (times[left] ?? end) > o.probeWindowMs) {
      forget(inWindow, keys[left] ?? '');
      left++;
    }
    if (right - left + 1 < o.probeMinRefusals || inWindow.size < o.probeMinKeys) continue;
    const start = times[left] ?? end;
    const last = spans.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = end;
    else spans.push([start, end]);
  }
  return spans;
}

function forget(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 1) - 1;
  if (count === 0) counts.delete(key);
  else counts.set(key, count);
}

function buildStorm(
  p: ClientPartition,
  f: Found,
  verdicts: ReadonlyMap<string, GateVerdict>,
  gate: ReadonlyMap<string, string>,
): Storm {
  const [first] = f.attempts;
  const failure = f.attempts.find((e) => (f.kind === 'probe_storm' ? e.bucket === 'refusal' : e.bucket !== 'ok'));
  const timeline = f.attempts.map((e): StormAttempt => {
    const verdict = verdicts.get(e.id);
    const avoidable = verdict?.avoidable === true;
    const blockedBy = avoidable ? (verdict?.blockedBy ?? null) : null;
    const { id, ts, httpStatus: status, rpcCode, latencyMs, bucket, kind } = e;
    return { id, ts, status, rpcCode, latencyMs, bucket, kind, avoidable, blockedBy, gate: gate.get(e.id) ?? '' };
  });
  return {
    id: stormId(f.kind, p.client, p.server, first),
    kind: f.kind,
    client: p.client,
    server: p.server,
    key: f.key,
    paths: f.paths,
    attempts: timeline.length,
    avoidable: timeline.filter((a) => a.avoidable).length,
    firstTs: first.ts,
    lastTs: f.attempts.reduce((max, e) => Math.max(max, e.ts), first.ts),
    firstFailure: { bucket: (failure ?? first).bucket, kind: (failure ?? first).kind },
    timeline,
  };
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
  /** The last needed throttled answer. */
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

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = (1n << 64n) - 1n;

/**
 * `kind:` + 64-bit FNV-1a of the parts: stable across runs and stores, and pure (no crypto module needed). The first
 * attempt is its id and time, as the store keys an event: logs reuse ids, and by id alone two storms of one client
 * and server whose first attempts shared an id were one row, the second overwriting the first.
 */
export function stormId(kind: StormKind, client: string, server: string, first: { id: string; ts: number }): string {
  const text = JSON.stringify([kind, client, server, first.id, first.ts]);
  let h = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * FNV_PRIME) & MASK_64;
  }
  return `${kind}:${h.toString(16).padStart(16, '0')}`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
