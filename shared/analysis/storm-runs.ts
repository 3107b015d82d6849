/**
 * Reconnect loops and retry loops (DOMAIN.md section 6) one attempt at a time: a run gathers the relevant attempts of
 * one endpoint (reconnect) or one request key (retry), each within the gap of the one before, and ends at a needed
 * success or a longer gap. What a storm lists of a run is trimmed: from the needed attempts the first avoidable one
 * follows (the refusal re-presented, the failures that spent the retry budget, the throttled answer, the input
 * request ignored; a pending round only when the avoidable attempt follows it directly) to the last avoidable one.
 * Needed attempts after the last avoidable one are held apart until another avoidable one comes.
 *
 * A run is kept as plain JSON aggregates, never as its attempts: a reconnect loop of 3.6 million GETs a day is one
 * small record. The attempts' ids are gathered only when asked (`collectIds`), for the offline report and timelines.
 */
import type { StormFact } from './storm-facts.ts';

/** The first attempt of a part of a run: a storm's id and title come from it. */
export interface AttemptRef {
  id: string;
  ts: number;
  bucket: StormFact['bucket'];
  kind: string;
  what: string;
  endpoint: string;
  continuation: boolean;
}

/** The attempts of a part of a run, summed up for counts and titles. */
export interface Attempts {
  n: number;
  avoidable: number;
  /** Attempts that are not the continuation of a call (a continuation carries answers, it re-sends nothing). */
  fresh: number;
  first: AttemptRef;
  lastTs: number;
  /** Kinds of the failed attempts, sorted. */
  failedKinds: string[];
  /** Connection attempts per what they were, in first-seen order (`server/discover`, `GET (no body)`). */
  connects: [string, number][];
  eraLegacy: boolean;
  anyTransient: boolean;
  /** Whether every needed attempt failed transiently: a transport that keeps failing. */
  neededAllTransient: boolean;
  stream: boolean;
  ids?: string[];
  avoidableIds?: string[];
}

export interface Run {
  lastTs: number;
  /** A reconnect loop's request keys so far: a needed success of one of them ends it. */
  keys?: string[];
  /** Needed attempts before the first avoidable one, pending rounds left out. */
  lead: Attempts | null;
  /** The last attempt, while it is a needed pending round: it joins the lead if an avoidable attempt follows. */
  pendingLast: Attempts | null;
  /** From the lead through the last avoidable attempt: what the storm lists. Null until an attempt is avoidable. */
  body: Attempts | null;
  /** Needed attempts after the last avoidable one. */
  trailing: Attempts | null;
}

const FAILED: ReadonlySet<string> = new Set(['refusal', 'transient', 'throttled', 'ambiguous']);

export function failed(fact: Pick<StormFact, 'bucket'>): boolean {
  return FAILED.has(fact.bucket);
}

/** Whether an attempt counts for a reconnect loop: avoidable, failed, or the era probe's negotiation. */
export function reconnectRelevant(fact: StormFact): boolean {
  return fact.avoidable || failed(fact) || fact.kind === 'era_legacy';
}

/** Whether an attempt counts for a retry loop: avoidable, failed, or pending. */
export function retryRelevant(fact: StormFact): boolean {
  return fact.avoidable || failed(fact) || fact.pending;
}

/** A needed success ends a retry loop; a reconnect loop ends at a needed success of a key it holds. */
export function endsRun(run: Run, fact: StormFact): boolean {
  if (fact.avoidable || fact.bucket !== 'ok') return false;
  if (run.keys === undefined) return true;
  return fact.kind === 'ok' && run.keys.includes(fact.key);
}

export function newRun(reconnect: boolean): Run {
  return { lastTs: 0, lead: null, pendingLast: null, body: null, trailing: null, ...(reconnect ? { keys: [] } : {}) };
}

/** Adds a relevant attempt to the run (the caller has closed the run first if the gap was longer). */
export function appendToRun(run: Run, fact: StormFact, collectIds: boolean): void {
  run.lastTs = fact.ts;
  if (run.keys !== undefined && !run.keys.includes(fact.key)) run.keys.push(fact.key);
  const one = single(fact, collectIds);
  if (run.body !== null) {
    if (fact.avoidable) {
      run.body = joined(joined(run.body, run.trailing), one);
      run.trailing = null;
    } else run.trailing = joined(run.trailing, one);
    return;
  }
  if (fact.avoidable) {
    run.body = joined(joined(run.lead, run.pendingLast), one);
    run.lead = null;
    run.pendingLast = null;
  } else if (fact.pending) {
    // A pending round followed by another needed answer was not what the client ignored: only the last one counts.
    run.pendingLast = one;
  } else {
    run.lead = joined(run.lead, one);
    run.pendingLast = null;
  }
}

/** What a storm would list of the run now; null when no attempt is avoidable yet. */
export function runAttempts(run: Run): Attempts | null {
  return run.body;
}

function single(fact: StormFact, collectIds: boolean): Attempts {
  const { id, ts, bucket, kind, what, endpoint, continuation } = fact;
  return {
    n: 1,
    avoidable: fact.avoidable ? 1 : 0,
    fresh: continuation ? 0 : 1,
    first: { id, ts, bucket, kind, what, endpoint, continuation },
    lastTs: ts,
    failedKinds: failed(fact) ? [kind] : [],
    connects: fact.connect ? [[fact.connectLabel, 1]] : [],
    eraLegacy: kind === 'era_legacy',
    anyTransient: bucket === 'transient',
    neededAllTransient: fact.avoidable || bucket === 'transient',
    stream: fact.stream,
    ...(collectIds ? { ids: [id], avoidableIds: fact.avoidable ? [id] : [] } : {}),
  };
}

/**
 * `a` then `b`, as one part of a run. Both are taken over: `a` is extended in place (a long run's ids are appended,
 * not copied at every attempt) and `b` must not be used again.
 */
export function joined(a: Attempts | null, b: Attempts | null): Attempts | null {
  if (a === null || b === null) return a ?? b;
  for (const [label, n] of b.connects) {
    const seen = a.connects.find(([known]) => known === label);
    if (seen === undefined) a.connects.push([label, n]);
    else seen[1] += n;
  }
  a.n += b.n;
  a.avoidable += b.avoidable;
  a.fresh += b.fresh;
  a.lastTs = b.lastTs;
  for (const kind of b.failedKinds) if (!a.failedKinds.includes(kind)) a.failedKinds.push(kind);
  a.failedKinds.sort();
  a.eraLegacy ||= b.eraLegacy;
  a.anyTransient ||= b.anyTransient;
  a.neededAllTransient &&= b.neededAllTransient;
  a.stream ||= b.stream;
  if (a.ids !== undefined && b.ids !== undefined) a.ids.push(...b.ids);
  if (a.avoidableIds !== undefined && b.avoidableIds !== undefined) a.avoidableIds.push(...b.avoidableIds);
  return a;
}
