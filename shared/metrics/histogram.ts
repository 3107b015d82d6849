import type { HistogramSample, Labels } from './exposition.ts';

/** Bounds in seconds for the durations of this process's work: a fold is ~0.5 s at its largest, a rule's read less. */
export const DURATION_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** Observations counted per bound, as a Prometheus histogram keeps them: cumulative, with their sum and count. */
export class Histogram {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(private readonly bounds: readonly number[] = DURATION_BOUNDS) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    const at = this.bounds.findIndex((bound) => value <= bound);
    if (at !== -1) this.counts[at] = (this.counts[at] as number) + 1;
  }

  sample(labels: Labels = []): HistogramSample {
    let cumulative = 0;
    const buckets = this.bounds.map((le, i) => {
      cumulative += this.counts[i] as number;
      return [le, cumulative] as const;
    });
    return { labels, buckets, sum: this.sum, count: this.count };
  }
}
