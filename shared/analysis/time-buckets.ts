/**
 * Time buckets for charts. Every bucket is aligned to the UTC epoch, so buckets computed at ingest, in a report and
 * in the browser agree, and a coarser step is always a whole number of finer ones (a day is 1440 one-minute buckets).
 */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** The steps a chart may use, finest first. */
export const STEPS_MS = [MINUTE_MS, 5 * MINUTE_MS, 15 * MINUTE_MS, HOUR_MS, 6 * HOUR_MS, DAY_MS] as const;

/** The steps by the names `/timeseries?step=` takes. */
export const STEP_NAMES = {
  '1m': MINUTE_MS,
  '5m': 5 * MINUTE_MS,
  '15m': 15 * MINUTE_MS,
  '1h': HOUR_MS,
  '6h': 6 * HOUR_MS,
  '1d': DAY_MS,
} as const satisfies Record<string, (typeof STEPS_MS)[number]>;
export type StepName = keyof typeof STEP_NAMES;

/** The most buckets a chosen step may make: a week of minutes (~1 MB of JSON). */
export const MAX_CHOSEN_BUCKETS = 7 * 1440;

/** Above this many buckets a chart stops being readable and its payload stops being small. */
const MAX_BUCKETS = 300;

/**
 * The finest step that keeps `rangeMs` within 300 buckets: 1 h → 1 min (60), 1 d → 5 min (288), 7 d → 1 h (168),
 * 30 d → 6 h (120). Ranges under an hour get 1 min (fewer buckets rather than sub-minute noise); ranges over
 * 300 days get 1 d (more buckets rather than an unaligned step).
 */
export function stepFor(rangeMs: number): number {
  for (const step of STEPS_MS) {
    if (rangeMs / step <= MAX_BUCKETS) return step;
  }
  return DAY_MS;
}

/** The start of the bucket holding `ts`; floor rather than truncation so that times before 1970 still round down. */
export function bucketStart(ts: number, stepMs: number): number {
  assertStep(stepMs);
  return Math.floor(ts / stepMs) * stepMs;
}

/**
 * Every bucket start from the bucket holding `from` up to (excluding) `to`. The first start may precede `from`:
 * the bucket that holds `from` is part of the range. Charts fill these starts from their data, so a bucket without
 * data is still listed and can be drawn as a zero (a count) or a gap (a rate: null).
 */
export function emptySeries(from: number, to: number, stepMs: number): number[] {
  const starts: number[] = [];
  for (let start = bucketStart(from, stepMs); start < to; start += stepMs) starts.push(start);
  return starts;
}

/** Counts per bucket over [from, to), with 0 (not a gap) for a bucket without any of the timestamps. */
export function countSeries(
  timestamps: Iterable<number>,
  from: number,
  to: number,
  stepMs: number,
): { start: number; count: number }[] {
  const counts = new Map<number, number>();
  for (const ts of timestamps) {
    if (ts < from || ts >= to) continue;
    const start = bucketStart(ts, stepMs);
    counts.set(start, (counts.get(start) ?? 0) + 1);
  }
  return emptySeries(from, to, stepMs).map((start) => ({ start, count: counts.get(start) ?? 0 }));
}

function assertStep(stepMs: number): void {
  // A zero or fractional step would loop forever in emptySeries or produce buckets that do not nest.
  if (!Number.isInteger(stepMs) || stepMs <= 0) {
    throw new RangeError(`step must be a positive integer of ms: ${stepMs}`);
  }
}
