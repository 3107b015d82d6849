/**
 * Retry loops and probe storms kept up to date one event at a time, for the ingest path: after any number of steps
 * over a partition's events in time order, the storms reported equal what `detectStorms` finds in those events
 * (without their attempt timelines, which a detail view rebuilds from the events). The state is plain JSON, so the
 * store can keep it between batches:
 * - per request key, the open run of failed attempts (`LoopRun`), dropped when a success ends it or the partition
 *   has moved on past it (`runIsOpen`);
 * - per (client, server), the refusals of the last probe window and the probe storm that may still grow.
 *
 * Time order is the gate's (shared/analysis/gate.ts): the caller steps judged events only, in (ts, seq, id) order,
 * each with the request key and avoidable verdict the gate gave it.
 */
import type { Bucket } from '../classify/types.ts';
import { endpointLabel } from './request-key.ts';
import { STORM_DEFAULTS, type StormOptions, type StormSummary, stormId } from './storms.ts';
import type { AnalysisEvent } from './types.ts';

/** Consecutive failed attempts of one key, open while the next attempt may still join them. */
export interface LoopRun {
  firstId: string;
  firstTs: number;
  firstBucket: Bucket;
  firstKind: string;
  path: string;
  lastTs: number;
  attempts: number;
  avoidable: number;
}

/**
 * A refusal inside the probe window. While it may still start a probe storm it keeps what that storm would count
 * from (`start`); once an open storm reaches past it, it can only be counted, and keeps its time and key alone: in a
 * long storm the window is mostly such entries, and it is written with every batch.
 */
interface WindowRefusal {
  ts: number;
  /** `keyHash` of its request key: keys are long. */
  key: number;
  start?: StormStart;
}

/** What a probe storm starting at a refusal counts from: its first event at that time, and what came before. */
interface StormStart {
  label: string;
  kind: string;
  firstId: string;
  before: number;
  avoidableBefore: number;
}

/** The latest probe storm, while a qualifying window can still reach back to it and make it longer. */
interface OpenProbe {
  start: number;
  end: number;
  firstId: string;
  firstKind: string;
  before: number;
  avoidableBefore: number;
  /** Events and avoidable events stepped up to and including `end`'s time, so far. */
  through: number;
  avoidableThrough: number;
  paths: string[];
  /** Refused endpoints since `end`: they join `paths` if the storm grows past them. */
  pending: string[];
}

export interface PartitionStormState {
  client: string;
  server: string;
  /** Judged events stepped, and of them avoidable. */
  stepped: number;
  avoidable: number;
  /** The time of the last event stepped: where events sharing it began. */
  now: { ts: number; firstId: string; before: number; avoidableBefore: number } | null;
  refusals: WindowRefusal[];
  probe: OpenProbe | null;
  /** Request key → its open run. Only the keys a batch touches need to be loaded. */
  loops: Record<string, LoopRun>;
}

export function createStormState(client: string, server: string): PartitionStormState {
  return { client, server, stepped: 0, avoidable: 0, now: null, refusals: [], probe: null, loops: {} };
}

/**
 * Steps one judged event and returns the storms it created or changed (as they stand now). A storm may be
 * returned by several steps: the last one returned is current.
 */
export function stormStep(
  state: PartitionStormState,
  e: AnalysisEvent,
  key: string,
  avoidable: boolean,
  o: Readonly<Required<StormOptions>> = STORM_DEFAULTS,
): StormSummary[] {
  if (state.now === null || state.now.ts !== e.ts) {
    state.now = { ts: e.ts, firstId: e.id, before: state.stepped, avoidableBefore: state.avoidable };
  }
  const now = state.now;
  state.stepped++;
  if (avoidable) state.avoidable++;
  const changed: StormSummary[] = [];
  const loop = stepLoop(state, e, key, avoidable, o.loopGapMs);
  if (loop !== null) changed.push(loop);
  const probe = stepProbe(state, now, e, key, o);
  if (probe !== null) changed.push(probe);
  return changed;
}

/** `loopsOfKey` in storms.ts, one attempt at a time: a run holds failures only, and a success closes it. */
function stepLoop(
  state: PartitionStormState,
  e: AnalysisEvent,
  key: string,
  avoidable: boolean,
  gapMs: number,
): StormSummary | null {
  const run = state.loops[key];
  if (run === undefined || !runIsOpen(run, e.ts, gapMs)) {
    if (e.bucket === 'ok') delete state.loops[key];
    else state.loops[key] = newRun(e, avoidable);
    return null;
  }
  run.lastTs = e.ts;
  run.attempts++;
  if (avoidable) run.avoidable++;
  if (e.bucket === 'ok') delete state.loops[key];
  return {
    id: stormId('retry_loop', state.client, state.server, { id: run.firstId, ts: run.firstTs }),
    kind: 'retry_loop',
    client: state.client,
    server: state.server,
    key,
    paths: [run.path],
    attempts: run.attempts,
    avoidable: run.avoidable,
    firstTs: run.firstTs,
    lastTs: run.lastTs,
    firstFailure: { bucket: run.firstBucket, kind: run.firstKind },
  };
}

/**
 * Whether `run` can still grow once its partition has stepped an event at `latestTs`: every later event comes at
 * that time or after, and one more than the gap after the run's last attempt starts a new run instead.
 */
export function runIsOpen(run: LoopRun, latestTs: number, gapMs: number = STORM_DEFAULTS.loopGapMs): boolean {
  return run.lastTs >= openRunsSince(latestTs, gapMs);
}

/** The earliest last attempt of a run still open once its partition has stepped an event at `latestTs`. */
export function openRunsSince(latestTs: number, gapMs: number = STORM_DEFAULTS.loopGapMs): number {
  return latestTs - gapMs;
}

function newRun(e: AnalysisEvent, avoidable: boolean): LoopRun {
  const { id, ts, bucket, kind } = e;
  const path = endpointLabel(e);
  return {
    firstId: id,
    firstTs: ts,
    firstBucket: bucket,
    firstKind: kind,
    path,
    lastTs: ts,
    attempts: 1,
    avoidable: avoidable ? 1 : 0,
  };
}

/** `probeSpans` in storms.ts, one event at a time: a storm counts every event from its first refusal's time on. */
function stepProbe(
  state: PartitionStormState,
  now: NonNullable<PartitionStormState['now']>,
  e: AnalysisEvent,
  key: string,
  o: Readonly<Required<StormOptions>>,
): StormSummary | null {
  const probe = state.probe;
  if (e.bucket !== 'refusal') {
    if (probe === null || e.ts !== probe.end) return null;
    probe.through = state.stepped;
    probe.avoidableThrough = state.avoidable;
    return probeStorm(state, probe);
  }
  const label = endpointLabel(e);
  const { firstId, before, avoidableBefore } = now;
  state.refusals.push({
    ts: e.ts,
    key: keyHash(key),
    start: { label, kind: e.kind, firstId, before, avoidableBefore },
  });
  let dropped = 0;
  while (e.ts - (state.refusals[dropped]?.ts ?? e.ts) > o.probeWindowMs) dropped++;
  if (dropped > 0) state.refusals.splice(0, dropped);
  const left = state.refusals[0];
  if (probe !== null && left !== undefined && left.ts > probe.end) state.probe = null;
  else if (probe !== null && !probe.pending.includes(label)) probe.pending.push(label);
  if (left === undefined || !qualifies(state.refusals, o)) return null;
  const open = state.probe;
  if (open !== null) {
    open.end = e.ts;
    open.through = state.stepped;
    open.avoidableThrough = state.avoidable;
    for (const path of open.pending) if (!open.paths.includes(path)) open.paths.push(path);
    open.pending = [];
    reachedBy(state.refusals);
    return probeStorm(state, open);
  }
  // Nothing reached this window's refusals before (no storm, or one that ended before all of them): all can start one.
  const paths = state.refusals.map((r) => r.start?.label ?? '');
  const first = left.start;
  if (first === undefined) throw new Error('storm tracker: a refusal that may start a probe storm lost its start');
  const started: OpenProbe = {
    start: left.ts,
    end: e.ts,
    firstId: first.firstId,
    firstKind: first.kind,
    before: first.before,
    avoidableBefore: first.avoidableBefore,
    through: state.stepped,
    avoidableThrough: state.avoidable,
    paths: [...new Set(paths)],
    pending: [],
  };
  state.probe = started;
  reachedBy(state.refusals);
  return probeStorm(state, started);
}

/**
 * The open storm now ends at the last refusal, so none of these can start another: a new one needs a window that
 * begins after it. Entries lose their start from the newest back (the older ones lost it at earlier steps).
 */
function reachedBy(refusals: WindowRefusal[]): void {
  for (let i = refusals.length - 1; i >= 0; i--) {
    const r = refusals[i] as WindowRefusal;
    if (r.start === undefined) return;
    delete r.start;
  }
}

/** At least `probeMinRefusals` refusals over at least `probeMinKeys` keys; stops counting keys once enough. */
function qualifies(refusals: readonly WindowRefusal[], o: Readonly<Required<StormOptions>>): boolean {
  if (refusals.length < o.probeMinRefusals) return false;
  const keys = new Set<number>();
  for (const r of refusals) {
    keys.add(r.key);
    if (keys.size >= o.probeMinKeys) return true;
  }
  return keys.size >= o.probeMinKeys;
}

function probeStorm(state: PartitionStormState, p: OpenProbe): StormSummary {
  return {
    id: stormId('probe_storm', state.client, state.server, { id: p.firstId, ts: p.start }),
    kind: 'probe_storm',
    client: state.client,
    server: state.server,
    key: null,
    paths: [...p.paths],
    attempts: p.through - p.before,
    avoidable: p.avoidableThrough - p.avoidableBefore,
    firstTs: p.start,
    lastTs: p.end,
    firstFailure: { bucket: 'refusal', kind: p.firstKind },
  };
}

/**
 * A 53-bit hash (cyrb53) of a request key. Only keys inside one partition's probe window are compared, at most a few
 * thousand: a collision, which could only hide that two keys were probed, is not to be expected.
 */
function keyHash(key: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
