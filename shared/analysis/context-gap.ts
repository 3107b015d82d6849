import { type NameRecord, nameRecord } from '../name-record.ts';
import { shareOf } from '../share.ts';
import { bucketStart, emptySeries, MINUTE_MS } from './time-buckets.ts';
import type { AnalysisEvent, ContextObservation, ContextScope } from './types.ts';

/**
 * The context gap (DOMAIN.md section 7, seed 002): what sampling requests asked to see (`includeContext`) against
 * what the client says it applied (`result._meta.context.applied`). A response that does not say is "not reported":
 * it has a column in the matrix but is never counted as trimmed or as granted, so it never moves the rate.
 */

export const SCOPES: readonly ContextScope[] = ['none', 'thisServer', 'allServers'];
export type AppliedColumn = ContextScope | 'not_reported';
export const APPLIED_COLUMNS: readonly AppliedColumn[] = [...SCOPES, 'not_reported'];

const RANK: Record<ContextScope, number> = { none: 0, thisServer: 1, allServers: 2 };

export interface ContextBucket {
  /** Sampling requests in the bucket, reported or not: tells "no sampling" from "sampling nobody reported on". */
  sampled: number;
  reported: number;
  trimmed: number;
}

/**
 * Order independent (only sums). Records are null-prototype so that a reason such as `constructor` is just a key.
 */
export interface ContextGap {
  /** The finest bucket kept; a chart may ask for any multiple of it. */
  stepMs: number;
  /** requested → applied → count. */
  matrix: Record<ContextScope, Record<AppliedColumn, number>>;
  /** Sampling responses that said what they applied. */
  reported: number;
  /** Reported responses that applied less than was requested (none < thisServer < allServers). */
  trimmed: number;
  /** Trimmed responses per stated reason. */
  reasons: NameRecord<number>;
  /** Trimmed responses that gave no reason. */
  trimmedWithoutReason: number;
  /** Keyed by bucket start (epoch ms, as a string: JSON object keys). */
  buckets: NameRecord<ContextBucket>;
}

export function emptyContextGap(stepMs: number = MINUTE_MS): ContextGap {
  bucketStart(0, stepMs); // validates the step once, here, rather than on the first event
  return {
    stepMs,
    matrix: { none: emptyRow(), thisServer: emptyRow(), allServers: emptyRow() },
    reported: 0,
    trimmed: 0,
    reasons: nameRecord<number>(),
    trimmedWithoutReason: 0,
    buckets: nameRecord<ContextBucket>(),
  };
}

/** Whether `applied` is narrower than `requested`. */
export function isTrimmed(requested: ContextScope, applied: ContextScope): boolean {
  return RANK[applied] < RANK[requested];
}

/** Folds one event into the accumulator (mutating it, for ingest speed) and returns it. */
export function addContext(acc: ContextGap, event: AnalysisEvent): ContextGap {
  if (!event.counted || event.context === null) return acc;
  return addContextCount(acc, event.ts, event.context, 1);
}

/**
 * Folds `count` sampling requests at `ts` with one context into the accumulator: what `addContext` does for one
 * event, for counts kept per minute (db/counters/context.ts).
 */
export function addContextCount(acc: ContextGap, ts: number, context: ContextObservation, count: number): ContextGap {
  const { requested, applied } = context;
  acc.matrix[requested][applied ?? 'not_reported'] += count;
  const key = String(Math.floor(ts / acc.stepMs) * acc.stepMs);
  let bucket = acc.buckets[key];
  if (bucket === undefined) {
    bucket = { sampled: 0, reported: 0, trimmed: 0 };
    acc.buckets[key] = bucket;
  }
  bucket.sampled += count;
  if (applied === null) return acc;
  acc.reported += count;
  bucket.reported += count;
  if (!isTrimmed(requested, applied)) return acc;
  acc.trimmed += count;
  bucket.trimmed += count;
  if (context.reason === null) acc.trimmedWithoutReason += count;
  else acc.reasons[context.reason] = (acc.reasons[context.reason] ?? 0) + count;
  return acc;
}

/** One accumulator per server that saw at least one counted sampling request. */
export function contextGapByServer(
  events: Iterable<AnalysisEvent>,
  stepMs: number = MINUTE_MS,
): Map<string, ContextGap> {
  const byServer = new Map<string, ContextGap>();
  for (const event of events) {
    if (!event.counted || event.context === null) continue;
    let acc = byServer.get(event.server);
    if (acc === undefined) {
      acc = emptyContextGap(stepMs);
      byServer.set(event.server, acc);
    }
    addContext(acc, event);
  }
  return byServer;
}

/** trimmed / reported; null when nothing reported, because 0 of 0 is "unknown", not "never trimmed". */
export function trimRate(gap: Pick<ContextBucket, 'reported' | 'trimmed'>): number | null {
  return shareOf(gap.trimmed, gap.reported);
}

export interface ContextTrendPoint extends ContextBucket {
  start: number;
  /** null where the bucket has no reported response: a gap in the line, not a zero. */
  rate: number | null;
}

/**
 * The trend over [from, to) at `stepMs`, which must be a multiple of the accumulator's step (all chart steps are
 * multiples of a minute, the default), of an accumulator that holds the window's requests. Every bucket is listed;
 * an empty one has zero counts and a null rate. The first bucket may start before `from` (it holds `from`): the
 * requests of the window's first, partial minute are in it, so the points add up to the matrix.
 */
export function contextTrend(acc: ContextGap, from: number, to: number, stepMs: number): ContextTrendPoint[] {
  if (stepMs % acc.stepMs !== 0) throw new RangeError(`step ${stepMs} is not a multiple of ${acc.stepMs}`);
  // Keyed by number in a Map: a day's trend is read for every server on every dashboard load (~7k buckets).
  const coarse = new Map<number, ContextBucket>();
  for (const key in acc.buckets) {
    addToBucket(coarse, bucketStart(Number(key), stepMs), acc.buckets[key] as ContextBucket);
  }
  return emptySeries(from, to, stepMs).map((start) => {
    const bucket = coarse.get(start);
    if (bucket === undefined) return { start, sampled: 0, reported: 0, trimmed: 0, rate: null };
    return {
      start,
      sampled: bucket.sampled,
      reported: bucket.reported,
      trimmed: bucket.trimmed,
      rate: trimRate(bucket),
    };
  });
}

function emptyRow(): Record<AppliedColumn, number> {
  return { none: 0, thisServer: 0, allServers: 0, not_reported: 0 };
}

function addToBucket(buckets: Map<number, ContextBucket>, start: number, add: ContextBucket): void {
  const bucket = buckets.get(start);
  if (bucket === undefined) {
    buckets.set(start, { sampled: add.sampled, reported: add.reported, trimmed: add.trimmed });
    return;
  }
  bucket.sampled += add.sampled;
  bucket.reported += add.reported;
  bucket.trimmed += add.trimmed;
}

/** The figures a reader is shown for one server's gap; the per-minute buckets stay behind. */
export function gapSummary(gap: ContextGap) {
  return {
    matrix: gap.matrix,
    reported: gap.reported,
    trimmed: gap.trimmed,
    trimRate: trimRate(gap),
    reasons: gap.reasons,
  };
}
