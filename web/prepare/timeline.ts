import type { EventView } from '../queries/events.ts';
import type { StormAttempt } from '../queries/storms.ts';

/**
 * Consecutive avoidable attempts that got the same answer and the same verdict, folded into one row: a reconnect
 * loop of 12,000 identical 405s reads as "first attempt, then 11,999 more like it", not as 12,000 rows. Needed
 * attempts are never folded: each one is something a correct client did too (and the timeline does not say which
 * path an attempt of a probe storm went to, so two "first attempts" may be two different paths).
 */
export interface TimelineRun {
  /** 1-based position of the run's first attempt in the storm. */
  position: number;
  first: StormAttempt;
  last: StormAttempt;
  count: number;
  /** The fastest and slowest answer in the run; null when no attempt logged a latency. */
  latency: { min: number; max: number } | null;
}

function sameAs(a: StormAttempt, b: StormAttempt): boolean {
  return (
    a.avoidable &&
    a.rpcMethod === b.rpcMethod &&
    a.status === b.status &&
    a.rpcCode === b.rpcCode &&
    a.answered === b.answered &&
    a.bucket === b.bucket &&
    a.kind === b.kind &&
    a.avoidable === b.avoidable &&
    a.blockedBy === b.blockedBy &&
    a.gate === b.gate
  );
}

export function collapseTimeline(timeline: readonly StormAttempt[]): TimelineRun[] {
  const runs: TimelineRun[] = [];
  timeline.forEach((attempt, index) => {
    const run = runs.at(-1);
    if (run !== undefined && sameAs(run.last, attempt)) {
      run.last = attempt;
      run.count += 1;
      run.latency = widen(run.latency, attempt.latencyMs);
      return;
    }
    runs.push({
      position: index + 1,
      first: attempt,
      last: attempt,
      count: 1,
      latency: widen(null, attempt.latencyMs),
    });
  });
  return runs;
}

function widen(range: TimelineRun['latency'], value: number | null): TimelineRun['latency'] {
  if (value === null) return range;
  if (range === null) return { min: value, max: value };
  return { min: Math.min(range.min, value), max: Math.max(range.max, value) };
}

/**
 * How the attempt answered: `405`, `200 · -32602`, `-32003`, `answered`, `unknown outcome` or `no answer`. A record
 * without an HTTP status (a host's log, lens tap over stdio) says what its frame says: answered, its error's code, or,
 * where its log hides the outcome (ADR 18), unknown; a host's connection attempt read from a lifecycle log (ADR 19)
 * has no frame, and says whether it connected.
 */
export function answerLabel(
  attempt: Pick<StormAttempt, 'status' | 'rpcCode'> & { answered?: boolean | null; kind?: string; rule?: string },
): string {
  const parts = [attempt.status, attempt.rpcCode].filter((part) => part !== null);
  if (parts.length > 0) return parts.join(' · ');
  if (attempt.kind === 'outcome_unknown') return 'unknown outcome';
  if (attempt.rule === CONNECTION_RULE) return attempt.kind === 'ok' ? 'connected' : 'not connected';
  return attempt.answered === true ? 'answered' : 'no answer';
}

/** What the attempt sent: its JSON-RPC method, a host's start of the server (ADR 19), or a request without a body. */
export function sentLabel(attempt: Pick<StormAttempt, 'rpcMethod' | 'rule'>): string | null {
  if (attempt.rpcMethod !== null) return attempt.rpcMethod;
  return attempt.rule === CONNECTION_RULE ? 'server start' : null;
}

/** The rule of a lifecycle log's connection attempt (shared/classify/records.ts). */
const CONNECTION_RULE = 'record.connection';

/** An event's answer as every list of events says it (answerLabel), from its view. */
export function eventAnswerLabel(event: Pick<EventView, 'http' | 'rpcCode' | 'response' | 'kind' | 'rule'>): string {
  return answerLabel({
    status: event.http.status,
    rpcCode: event.rpcCode,
    answered: event.response !== null,
    kind: event.kind,
    rule: event.rule,
  });
}
