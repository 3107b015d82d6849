import type { Bucket } from '../classify/types.ts';
import { countSeries } from './time-buckets.ts';
import type { AnalysisEvent } from './types.ts';

/**
 * Re-presentations per request identity (DOMAIN.md section 5, seed 002): how often the same request was sent again
 * after its first appearance. Only counted events with an identity take part: a proxy record shadowed by the
 * client's record is the same send, and an event without a request frame has no identity to re-present.
 */

/** The outcome of an identity's latest send, with the (ts, seq, id) that made it the latest. */
export interface LastOutcome {
  ts: number;
  seq: number;
  id: string;
  bucket: Bucket;
  kind: string;
  rule: string;
}

/**
 * How often an identity was re-presented (DOMAIN.md section 5): its sends after the first, which is not a
 * re-presentation. The one formula the identity list, its alarm metric and `lens report` read.
 */
export function representations(sends: number): number {
  return Math.max(0, sends - 1);
}

export interface IdentityStats {
  identity: string;
  server: string;
  /**
   * The JSON-RPC method of its latest send: an identity's sends ask the same thing, and where two methods could
   * share one (both with none of the fields their identity reads), the latest send's is as good as any.
   */
  method: string | null;
  sends: number;
  /** Sends after the first: the first send is not a re-presentation. */
  represented: number;
  firstSeen: number;
  lastSeen: number;
  last: LastOutcome;
}

export type IdentitySend = AnalysisEvent & { identity: string };

/**
 * Whether an event is a send of its identity: a counted record with one. An MRTR round that answers an input request
 * is part of its call, never a re-presentation (DOMAIN.md section 10).
 */
export function isIdentitySend(event: AnalysisEvent): event is IdentitySend {
  return event.counted && event.identity !== null && !event.continuation;
}

/**
 * The sends a counted record makes: its own (`isIdentitySend`), and each request the server asked inside its answer
 * (MCP 2026-07-28's input requests, DOMAIN.md section 10), a send of that request's identity and method with the
 * round's time and outcome, as a 2025 server's sampling request is one of its own.
 */
export function sendsOf(event: AnalysisEvent): IdentitySend[] {
  const own = isIdentitySend(event) ? [event] : [];
  if (!event.counted || event.asked === undefined || event.asked.length === 0) return own;
  return [...own, ...event.asked.map(({ identity, method }) => ({ ...event, identity, rpcMethod: method }))];
}

/** The `n` most re-presented identities among `events` (the offline report's top; the API ranks from its store). */
export function topIdentities(events: readonly AnalysisEvent[], n: number): IdentityStats[] {
  return identityTimelines(events)
    .flatMap((timeline) => timelineStats(timeline) ?? [])
    .sort(bySends)
    .slice(0, Math.max(0, n));
}

/**
 * One identity's sends in a window as its views need them, readable from an index of (identity, ts) and one row:
 * every re-presentation number here depends on the sends' times alone (which send is first matters only through
 * its time), and the last outcome on the latest send.
 */
export interface SendTimeline {
  identity: string;
  server: string;
  /** Every send's time, ascending. */
  times: number[];
  /** The latest send (by ts, seq, id): its outcome and its method. */
  last: LastOutcome & { method: string | null };
}

/** The counts and last outcome of an identity over its timeline's window; null when it was not sent. */
export function timelineStats({ identity, server, times, last }: SendTimeline): IdentityStats | null {
  const firstSeen = times[0];
  const lastSeen = times.at(-1);
  if (firstSeen === undefined || lastSeen === undefined) return null;
  const { method, ...outcome } = last;
  return {
    identity,
    server,
    method,
    sends: times.length,
    represented: representations(times.length),
    firstSeen,
    lastSeen,
    last: outcome,
  };
}

/**
 * Re-presentations per time bucket over [from, to), zero-filled, for a chart: every send's time (ascending) but the
 * first.
 */
export function timelineSeries(
  times: readonly number[],
  from: number,
  to: number,
  stepMs: number,
): { start: number; count: number }[] {
  return countSeries(times.slice(1), from, to, stepMs);
}

/** Arrival order: time, then arrival sequence, then id, so that any input order gives the same answer. */
export function compareOrder(
  a: Pick<AnalysisEvent, 'ts' | 'seq' | 'id'>,
  b: Pick<AnalysisEvent, 'ts' | 'seq' | 'id'>,
): number {
  if (a.ts !== b.ts) return a.ts - b.ts;
  if (a.seq !== b.seq) return a.seq - b.seq;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function outcomeOf(event: AnalysisEvent): LastOutcome {
  return { ts: event.ts, seq: event.seq, id: event.id, bucket: event.bucket, kind: event.kind, rule: event.rule };
}

/** Most sent first, ties by identity, as the API ranks them (api/services/analysis/identity-ranking.ts). */
function bySends(a: IdentityStats, b: IdentityStats): number {
  return b.sends - a.sends || (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0);
}

export interface AlarmOptions {
  /** Re-presentations that make a retry loop; seed 002's example: 40. */
  threshold?: number;
  /** The length of the sliding window; seed 002's example: 10 minutes. */
  windowMs?: number;
}

/** Seed 002's alarm: 40 re-presentations within 10 minutes is a retry loop. */
export const REPRESENTATION_ALARM = { threshold: 40, windowMs: 600_000 } as const;

export interface RepresentationAlarm {
  identity: string;
  server: string;
  method: string | null;
  /** The most re-presentations found inside one window (at least the threshold). */
  count: number;
  /** The first and last re-presentation of the earliest window holding `count`: its observed span. */
  start: number;
  end: number;
  /** When the threshold was first reached: the time of the re-presentation that completed the first such window. */
  firstReachedAt: number;
}

/**
 * Identities re-presented `threshold` times within `windowMs` (seed 002: 40 in 10 minutes is a retry loop).
 *
 * Exact definition: an identity's re-presentations are its sends in (ts, seq, id) order minus the first. A window
 * is any half-open span [s, s + windowMs); it holds the re-presentations whose ts fall inside it. The alarm fires
 * when some window holds `threshold` or more, i.e. when re-presentations r_i .. r_(i+threshold-1) satisfy
 * ts(r_last) - ts(r_first) < windowMs. This equals "sends in the window minus one if the identity's very first send
 * is in the window": the first send is simply never a re-presentation, wherever the window falls. The window slides
 * over every re-presentation, so 40 sends straddling two clock-aligned 10-minute blocks are still found.
 */
export function representationAlarms(
  events: Iterable<AnalysisEvent>,
  options: AlarmOptions = {},
): RepresentationAlarm[] {
  return identityTimelines(events)
    .flatMap((timeline) => timelineAlarm(timeline, options) ?? [])
    .sort(byAlarm);
}

/** Each identity's timeline from its counted sends among `events`, in any order. */
export function identityTimelines(events: Iterable<AnalysisEvent>): SendTimeline[] {
  return [...groupByIdentity(events).values()].map((sends) => {
    sends.sort(compareOrder);
    const latest = sends.at(-1) as IdentitySend;
    return {
      identity: latest.identity,
      server: latest.server,
      times: sends.map((send) => send.ts),
      last: lastOf(latest),
    };
  });
}

/** The identity's alarm (its densest window), or null when it never reaches the threshold. */
export function timelineAlarm(
  { identity, server, times, last }: SendTimeline,
  { threshold = REPRESENTATION_ALARM.threshold, windowMs = REPRESENTATION_ALARM.windowMs }: AlarmOptions = {},
): RepresentationAlarm | null {
  if (!Number.isInteger(threshold) || threshold < 1) throw new RangeError(`threshold must be >= 1: ${threshold}`);
  if (!(windowMs > 0)) throw new RangeError(`windowMs must be > 0: ${windowMs}`);
  // Fewer sends than threshold + 1 can never hold threshold re-presentations.
  if (times.length <= threshold) return null;
  const densest = densestWindow(times, threshold, windowMs);
  return densest === null ? null : { identity, server, method: last.method, ...densest };
}

/** The densest alarm first, then the earliest to reach the threshold, then by identity. */
export function byAlarm(a: RepresentationAlarm, b: RepresentationAlarm): number {
  return (
    b.count - a.count ||
    a.firstReachedAt - b.firstReachedAt ||
    (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0)
  );
}

function groupByIdentity(events: Iterable<AnalysisEvent>): Map<string, IdentitySend[]> {
  const groups = new Map<string, IdentitySend[]>();
  for (const event of events) {
    for (const send of sendsOf(event)) {
      const group = groups.get(send.identity);
      if (group === undefined) groups.set(send.identity, [send]);
      else group.push(send);
    }
  }
  return groups;
}

/** Two pointers over the re-presentations' times (index 1 on), ascending: O(n). */
function densestWindow(
  times: readonly number[],
  threshold: number,
  windowMs: number,
): Pick<RepresentationAlarm, 'count' | 'start' | 'end' | 'firstReachedAt'> | null {
  let best = 0;
  let start = 0;
  let end = 0;
  let firstReachedAt: number | null = null;
  let lo = 1;
  for (let hi = 1; hi < times.length; hi += 1) {
    const hiTs = times[hi] ?? 0;
    while ((times[lo] ?? hiTs) <= hiTs - windowMs) lo += 1;
    const count = hi - lo + 1;
    if (count >= threshold && firstReachedAt === null) firstReachedAt = hiTs;
    if (count > best) {
      best = count;
      start = times[lo] ?? hiTs;
      end = hiTs;
    }
  }
  return firstReachedAt === null ? null : { count: best, start, end, firstReachedAt };
}

function lastOf(event: IdentitySend): SendTimeline['last'] {
  return { ...outcomeOf(event), method: event.rpcMethod };
}
