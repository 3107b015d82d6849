import { Histogram } from '../../shared/metrics/histogram.ts';

/** What one ingest answered, as it counts lines (api/services/ingest.ts IngestReport). */
export interface IngestTally {
  accepted: number;
  duplicates: number;
  rejectedTotal: number;
}

/**
 * What this process did since it started: lines taken by ingest and how long its folds and alert evaluations took.
 * None of it is in the store (a rejected line is never stored; a duration is no fact about traffic), so it starts
 * from zero with the process, which Prometheus reads as a counter's reset. The traffic's own counts come from the
 * store (api/services/metrics/federation.ts).
 */
export class ProcessMetrics {
  readonly lines = { accepted: 0, duplicate: 0, rejected: 0 };
  readonly folds = new Histogram();
  readonly alertEvaluations = new Histogram();

  ingested(report: IngestTally): void {
    this.lines.accepted += report.accepted;
    this.lines.duplicate += report.duplicates;
    this.lines.rejected += report.rejectedTotal;
  }
}

/** Seconds since `startedAt` (performance.now()): durations on the monotonic clock, never the app's. */
export function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
