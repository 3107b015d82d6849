/**
 * Retry storms (DOMAIN.md section 6) found one attempt at a time, for every path that finds them: the ingest path
 * (which keeps a partition's state between batches as JSON), the offline report, and `detectStorms`. One
 * implementation, so they cannot disagree.
 *
 * Per (client, server) partition and per sender (a server's own requests are its conduct, not the client's), each
 * avoidable attempt is tried for the three kinds in order, and an attempt belongs to at most one storm:
 * 1. probe storm: refusals that block endpoints or methods, 2 or more of them within a window from the first
 *    (shared/analysis/storm-window.ts), and every attempt of those targets in the window;
 * 2. reconnect loop: the other relevant attempts that re-open a connection, per endpoint;
 * 3. retry loop: the other relevant attempts, per request key (shared/analysis/storm-runs.ts).
 * A storm is listed with at least 3 attempts, at least 1 of them avoidable.
 *
 * Order of decision. Whether an attempt is in a probe storm is known once the window that may hold it has seen its
 * end; until then the attempt waits in the side's tail. Attempts before the first undecided window's start (and
 * before the partition's latest time, which a later attempt may still share) leave the tail for the loops. What the
 * tail holds is judged again at every `flushStorms`, on copies, so that the storms reported always equal those of
 * one pass over all events so far: `final` storms never change again, `current` ones are as the data stand.
 */
import { hitsAny, type StormFact, type StormSide, targetLabel } from './storm-facts.ts';
import { type StormKind, type StormSummary, stormId } from './storm-model.ts';
import {
  type Attempts,
  appendToRun,
  endsRun,
  newRun,
  type Run,
  reconnectRelevant,
  retryRelevant,
  runAttempts,
} from './storm-runs.ts';
import { loopTitle, probeTitle } from './storm-titles.ts';
import { ProbeWindow } from './storm-window.ts';

export interface StormOptions {
  /** A loop ends at the first gap between its attempts longer than this. */
  gapMs?: number;
  /** A probe storm's refusals lie within this long of its first. */
  probeWindowMs?: number;
}

export const STORM_DEFAULTS: Readonly<Required<StormOptions>> = { gapMs: 60_000, probeWindowMs: 300_000 };

/** A storm is listed from this many attempts (and at least one avoidable). */
export const MIN_STORM_ATTEMPTS = 3;

/** An attempt waiting in the tail; `inProbe` once a decided probe storm holds it, `passed` once it starts none. */
export interface TailFact extends StormFact {
  inProbe?: true;
  passed?: true;
}

export interface SideStormState {
  tail: TailFact[];
  /** Open runs: `c` + endpoint for reconnect loops, `r` + request key for retry loops. */
  runs: Record<string, Run>;
  /** The time of the last attempt handed to the loops. */
  fedTs: number | null;
}

export interface PartitionStormState {
  version: 2;
  client: string;
  server: string;
  /** The latest time stepped: every later attempt comes at or after it. */
  latest: number | null;
  sides: Partial<Record<StormSide, SideStormState>>;
  /** Storms written at the last flush that may still change or vanish (the store deletes those that did). */
  shown: string[];
  /** Gather each storm's attempt ids (the offline report and timelines); the store does not. */
  collectIds: boolean;
}

/** A storm with, when gathered, the ids of its attempts and of its avoidable attempts. */
export type FoundStorm = StormSummary & { attemptIds?: string[]; avoidableIds?: string[] };

export function createStormState(client: string, server: string, collectIds = false): PartitionStormState {
  return { version: 2, client, server, latest: null, sides: {}, shown: [], collectIds };
}

/**
 * The time of the earliest attempt the state still holds, in a side's tail or in an open run, or null when it holds
 * none: a storm not final yet begins at or after it, since a storm's first attempt is one of those (a replay from
 * this state, gate-step.ts, keeps the storms before it). Call it after `takeFinal`, which closes the runs passed.
 */
export function heldFrom(state: PartitionStormState): number | null {
  let earliest = Number.POSITIVE_INFINITY;
  for (const side of Object.values(state.sides)) {
    if (side === undefined) continue;
    const first = side.tail[0];
    if (first !== undefined) earliest = Math.min(earliest, first.ts);
    for (const run of Object.values(side.runs)) {
      for (const part of [run.lead, run.pendingLast, run.body, run.trailing]) {
        if (part !== null) earliest = Math.min(earliest, part.first.ts);
      }
    }
  }
  return earliest === Number.POSITIVE_INFINITY ? null : earliest;
}

/**
 * The in-memory tracker of one partition: state loaded from JSON (or new), stepped, flushed. Storms that become
 * final on the way wait in `finished` until a flush hands them out.
 */
export class PartitionStorms {
  private readonly sides = new Map<StormSide, SideTracker>();
  private readonly finished = new Map<string, FoundStorm>();

  constructor(
    readonly state: PartitionStormState,
    private readonly options: Readonly<Required<StormOptions>> = STORM_DEFAULTS,
  ) {
    for (const side of ['client', 'server'] as const) {
      const saved = state.sides[side];
      if (saved !== undefined) this.sides.set(side, new SideTracker(this, side, saved));
    }
  }

  /** Steps one judged attempt, in the partition's time order. */
  step(fact: StormFact): void {
    const { state } = this;
    state.latest = fact.ts;
    let side = this.sides.get(fact.side);
    if (side === undefined) {
      const saved: SideStormState = { tail: [], runs: {}, fedTs: null };
      state.sides[fact.side] = saved;
      side = new SideTracker(this, fact.side, saved);
      this.sides.set(fact.side, side);
    }
    side.push(fact);
    for (const s of this.sides.values()) s.advance(fact.ts);
  }

  /**
   * The storms that became final since the last flush, and every storm as the data stand now that may still change.
   * `vanished` are ids shown at the last flush that are neither: the store deletes their rows.
   */
  flush(): { final: FoundStorm[]; current: FoundStorm[]; vanished: string[] } {
    // Runs the partition has moved past are closed first: their storms are final now.
    const final = this.takeFinal();
    const current = [...this.sides.values()].flatMap((side) => side.current());
    const kept = new Set([...final, ...current].map((s) => s.id));
    const vanished = this.state.shown.filter((id) => !kept.has(id));
    this.state.shown = current.map((s) => s.id);
    return { final, current, vanished };
  }

  /**
   * The storms that became final since the last call, and the runs the partition has moved past closed: what a
   * long stream hands on as it goes, so that its memory holds open state only. Nothing provisional.
   */
  takeFinal(): FoundStorm[] {
    for (const side of this.sides.values()) side.compact();
    const final = [...this.finished.values()];
    this.finished.clear();
    return final;
  }

  /** @internal */ emit(storm: FoundStorm): void {
    this.finished.set(storm.id, storm);
  }

  /** @internal */ get opts(): Readonly<Required<StormOptions>> {
    return this.options;
  }
}

/** One sender's attempts within a partition. */
class SideTracker {
  private readonly window: ProbeWindow;
  /** The tail's attempts before this index were handed to the loops (dropped at `compact`). */
  private fed = 0;

  constructor(
    private readonly owner: PartitionStorms,
    private readonly side: StormSide,
    private readonly saved: SideStormState,
  ) {
    this.window = new ProbeWindow(owner.opts.probeWindowMs);
  }

  push(fact: StormFact): void {
    this.saved.tail.push({ ...fact });
  }

  /** Decides the windows the partition's latest time `t` has closed, then hands decided attempts to the loops. */
  advance(t: number): void {
    const { tail } = this.saved;
    const windowMs = this.owner.opts.probeWindowMs;
    for (let p = this.pointer(); p !== -1 && t > (tail[p] as TailFact).ts + windowMs; p = this.pointer()) {
      const start = tail[p] as TailFact;
      this.window.moveTo(tail, start.ts);
      if (!this.window.qualifies()) {
        start.passed = true;
        continue;
      }
      const storm = this.probeStorm(start.ts, this.window.targets(tail), true);
      if (storm !== null) this.owner.emit(storm);
      // The chain goes on after the window: no refusal inside it starts another.
      for (let i = p; i < tail.length && (tail[i] as TailFact).ts <= start.ts + windowMs; i++) {
        (tail[i] as TailFact).passed = true;
      }
    }
    const p = this.pointer();
    const until = Math.min(p === -1 ? Number.POSITIVE_INFINITY : (tail[p] as TailFact).ts, t);
    while (this.fed < tail.length && (tail[this.fed] as TailFact).ts < until) this.feed(tail[this.fed++] as TailFact);
  }

  /** Storms as the data stand: the tail judged on copies, the open runs as they are. */
  current(): FoundStorm[] {
    const { tail } = this.saved;
    const found: FoundStorm[] = [];
    const window = this.window.clone();
    const inProbe = new Set<number>();
    for (let p = this.pointer(); p !== -1; p = this.nextStart(p)) {
      const start = tail[p] as TailFact;
      window.moveTo(tail, start.ts);
      if (!window.qualifies()) continue;
      const storm = this.probeStorm(start.ts, window.targets(tail), false, inProbe);
      if (storm !== null) found.push(storm);
      break;
    }
    // The runs are copied as the tail's attempts reach them, not all up front: most of a partition's runs take no
    // attempt from the tail (a live pair's fold feeds few), and a deep copy of all of them was most of a flush.
    const runs = { ...this.saved.runs };
    const copied = new Set<string>();
    const closed: FoundStorm[] = [];
    for (let i = this.fed; i < tail.length; i++) {
      if (inProbe.has(i)) continue;
      const fact = tail[i] as TailFact;
      const runKey = runKeyOf(fact);
      const run = runs[runKey];
      if (run !== undefined && !copied.has(runKey)) runs[runKey] = structuredClone(run);
      copied.add(runKey);
      feedRun(runs, fact, this.owner, (s) => closed.push(s), this.makeLoop);
    }
    for (const [runKey, run] of Object.entries(runs)) {
      const storm = this.makeLoop(runKey, run);
      if (storm !== null) found.push(storm);
    }
    return [...found, ...closed];
  }

  /**
   * Drops what the loops have taken, and closes the runs that can no longer grow: every attempt still to come to
   * them comes at or after the first one not handed over yet (or the partition's latest time), and one more than the
   * gap after a run's last attempt starts a new run instead. Their storms are final.
   */
  compact(): void {
    this.saved.tail.splice(0, this.fed);
    this.window.shift(this.fed);
    this.fed = 0;
    const next = this.saved.tail[0]?.ts ?? this.owner.state.latest;
    if (next === null) return;
    for (const [runKey, run] of Object.entries(this.saved.runs)) {
      if (next - run.lastTs > this.owner.opts.gapMs) this.close(runKey, run);
    }
  }

  private feed(fact: TailFact): void {
    this.saved.fedTs = fact.ts;
    if (fact.inProbe === true) return;
    feedRun(this.saved.runs, fact, this.owner, (storm) => this.owner.emit(storm), this.makeLoop);
  }

  private close(runKey: string, run: Run): void {
    delete this.saved.runs[runKey];
    const storm = this.makeLoop(runKey, run);
    if (storm !== null) this.owner.emit(storm);
  }

  /** The next refusal that may start a window: the first in the tail not passed. */
  private pointer(): number {
    return this.nextStart(-1);
  }

  private nextStart(after: number): number {
    const { tail } = this.saved;
    for (let i = Math.max(after + 1, this.fed); i < tail.length; i++) {
      const fact = tail[i] as TailFact;
      if (fact.probes !== null && fact.passed !== true && fact.inProbe !== true) return i;
    }
    return -1;
  }

  /**
   * The probe storm of the window [t0, t0 + window] over `targets`: every attempt of those targets in it. Marks them
   * when `decided`; otherwise notes their indices in `provisional`. Null when too small to list (it then holds none).
   */
  private probeStorm(
    t0: number,
    targets: string[],
    decided: boolean,
    provisional: Set<number> = new Set(),
  ): FoundStorm | null {
    const { tail } = this.saved;
    const wanted = new Set(targets);
    const end = t0 + this.owner.opts.probeWindowMs;
    const members: number[] = [];
    for (let i = this.fed; i < tail.length && (tail[i] as TailFact).ts <= end; i++) {
      const fact = tail[i] as TailFact;
      if (fact.ts >= t0 && fact.inProbe !== true && hitsAny(fact, wanted)) members.push(i);
    }
    const attempts = members.map((i) => tail[i] as TailFact);
    const avoidable = attempts.filter((f) => f.avoidable);
    const first = attempts[0];
    // Too small to list, it holds nothing: its attempts stay for the loops.
    if (first === undefined || attempts.length < MIN_STORM_ATTEMPTS || avoidable.length === 0) return null;
    for (const i of members) {
      if (decided) (tail[i] as TailFact).inProbe = true;
      else provisional.add(i);
    }
    const undeclared = (target: string) => attempts.some((f) => f.probes === target && f.undeclared);
    return this.storm('probe_storm', {
      key: JSON.stringify(targets),
      paths: targets.map(targetLabel),
      first,
      lastTs: (attempts.at(-1) as TailFact).ts,
      attempts: attempts.length,
      avoidable: avoidable.length,
      title: probeTitle(this.names(), targets, undeclared, attempts.length, avoidable.length),
      ...(this.owner.state.collectIds
        ? { attemptIds: attempts.map((f) => f.id), avoidableIds: avoidable.map((f) => f.id) }
        : {}),
    });
  }

  private readonly makeLoop = (runKey: string, run: Run): FoundStorm | null => {
    const attempts = runAttempts(run);
    if (attempts === null || attempts.n < MIN_STORM_ATTEMPTS) return null;
    const kind: StormKind = runKey.startsWith('c') ? 'reconnect_loop' : 'retry_loop';
    return this.storm(kind, {
      key: runKey.slice(1),
      paths: [attempts.first.endpoint],
      first: attempts.first,
      lastTs: attempts.lastTs,
      attempts: attempts.n,
      avoidable: attempts.avoidable,
      title: loopTitle(kind, this.names(), attempts),
      ...(attempts.ids === undefined ? {} : { attemptIds: attempts.ids, avoidableIds: attempts.avoidableIds ?? [] }),
    });
  };

  private storm(
    kind: StormKind,
    found: Pick<
      FoundStorm,
      'key' | 'paths' | 'lastTs' | 'attempts' | 'avoidable' | 'title' | 'attemptIds' | 'avoidableIds'
    > & {
      first: Pick<Attempts['first'], 'id' | 'ts' | 'bucket' | 'kind'>;
    },
  ): FoundStorm {
    const { client, server } = this.owner.state;
    const { first, ...rest } = found;
    return {
      id: stormId(kind, client, server, first),
      kind,
      client,
      server,
      sentBy: this.side,
      actor: this.names().actor,
      counterpart: this.names().counterpart,
      firstTs: first.ts,
      firstFailure: { bucket: first.bucket, kind: first.kind },
      ...rest,
    };
  }

  private names(): { actor: string; counterpart: string; server: string } {
    const { client, server } = this.owner.state;
    const sides =
      this.side === 'server' ? { actor: server, counterpart: client } : { actor: client, counterpart: server };
    return { ...sides, server };
  }
}

/** Hands one attempt no probe storm holds to its loop: a reconnect loop per endpoint, else a retry loop per key. */
function feedRun(
  runs: Record<string, Run>,
  fact: StormFact,
  owner: PartitionStorms,
  emit: (storm: FoundStorm) => void,
  makeLoop: (runKey: string, run: Run) => FoundStorm | null,
): void {
  const runKey = runKeyOf(fact);
  const relevant = fact.connect ? reconnectRelevant(fact) : retryRelevant(fact);
  const run = runs[runKey];
  // Closed in line, not by a closure made here: this runs for every attempt a fold re-judges, and the closure (named
  // at run time under tsx) cost more than the rest of the call.
  if (run !== undefined && (relevant ? fact.ts - run.lastTs > owner.opts.gapMs : endsRun(run, fact))) {
    delete runs[runKey];
    const storm = makeLoop(runKey, run);
    if (storm !== null) emit(storm);
  }
  if (!relevant) return;
  const open = runs[runKey] ?? newRun(fact.connect);
  runs[runKey] = open;
  appendToRun(open, fact, owner.state.collectIds);
}

/** The run an attempt goes to: `c` + endpoint for a reconnect loop, `r` + request key for a retry loop. */
function runKeyOf(fact: StormFact): string {
  return fact.connect ? `c${fact.endpointTarget}` : `r${fact.key}`;
}
