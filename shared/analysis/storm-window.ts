/**
 * The probe window of a side of a partition (DOMAIN.md section 6): the refusals that block an endpoint or a method,
 * from the window's first one (`t0`) to `t0 + probeWindowMs`, counted per target. A window is a probe storm when it
 * touches 2 or more targets and at least one of them is a search (not only a 2025-era client's GET or DELETE meeting
 * a sessionless server, section 10).
 *
 * The window moves forward only, over an array of attempts in time order: each attempt enters and leaves it once,
 * so a client refused for hours on one endpoint costs a constant per attempt, not a window's worth.
 */
import type { StormFact } from './storm-facts.ts';

interface TargetCount {
  refusals: number;
  /** Refusals that are a search, not an era mismatch. */
  searching: number;
}

export class ProbeWindow {
  /** Attempts [lo, hi) of the array are the window's (those that are probe refusals count). */
  private lo = 0;
  private hi = 0;
  private t0 = Number.NEGATIVE_INFINITY;
  private readonly counts = new Map<string, TargetCount>();
  /** Targets with at least one searching refusal in the window. */
  private searchingTargets = 0;

  constructor(private readonly windowMs: number) {}

  /** Moves the window to start at `t0` (never earlier than before) over `facts`, which may have grown since. */
  moveTo(facts: readonly StormFact[], t0: number): void {
    if (t0 < this.t0) throw new RangeError('a probe window only moves forward');
    this.t0 = t0;
    while (this.lo < this.hi && (facts[this.lo] as StormFact).ts < t0) this.leave(facts[this.lo++] as StormFact);
    if (this.lo > this.hi) this.hi = this.lo;
    this.lo = Math.max(this.lo, this.firstAtOrAfter(facts, t0, this.lo));
    if (this.hi < this.lo) this.hi = this.lo;
    const end = t0 + this.windowMs;
    while (this.hi < facts.length && (facts[this.hi] as StormFact).ts <= end) this.enter(facts[this.hi++] as StormFact);
  }

  /** Whether the window is a probe storm. */
  qualifies(): boolean {
    return this.counts.size >= 2 && this.searchingTargets > 0;
  }

  /** The window's targets in first-seen order. */
  targets(facts: readonly StormFact[]): string[] {
    const seen = new Set<string>();
    for (let i = this.lo; i < this.hi; i++) {
      const target = (facts[i] as StormFact).probes;
      if (target !== null) seen.add(target);
    }
    return [...seen];
  }

  /** After the array dropped its first `n` attempts: the window's indices follow. */
  shift(n: number): void {
    this.lo = Math.max(0, this.lo - n);
    this.hi = Math.max(0, this.hi - n);
  }

  /** Forgets everything: the next `moveTo` counts afresh from its own start. */
  reset(at: number): void {
    this.lo = at;
    this.hi = at;
    this.t0 = Number.NEGATIVE_INFINITY;
    this.counts.clear();
    this.searchingTargets = 0;
  }

  clone(): ProbeWindow {
    const copy = new ProbeWindow(this.windowMs);
    copy.lo = this.lo;
    copy.hi = this.hi;
    copy.t0 = this.t0;
    for (const [target, count] of this.counts) copy.counts.set(target, { ...count });
    copy.searchingTargets = this.searchingTargets;
    return copy;
  }

  private firstAtOrAfter(facts: readonly StormFact[], t0: number, from: number): number {
    let i = from;
    while (i < facts.length && (facts[i] as StormFact).ts < t0) i++;
    return i;
  }

  private enter(fact: StormFact): void {
    if (fact.probes === null) return;
    let count = this.counts.get(fact.probes);
    if (count === undefined) {
      count = { refusals: 0, searching: 0 };
      this.counts.set(fact.probes, count);
    }
    count.refusals++;
    if (!fact.eraMismatch && count.searching++ === 0) this.searchingTargets++;
  }

  private leave(fact: StormFact): void {
    if (fact.probes === null) return;
    const count = this.counts.get(fact.probes);
    if (count === undefined) return;
    if (!fact.eraMismatch && --count.searching === 0) this.searchingTargets--;
    if (--count.refusals === 0) this.counts.delete(fact.probes);
  }
}
