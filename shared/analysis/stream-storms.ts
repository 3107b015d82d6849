import type { GateVerdict } from './gate-types.ts';
import { createStormState, type PartitionStormState, runIsOpen, stormStep } from './storm-tracker.ts';
import { byStormOrder, type StormSummary } from './storms.ts';
import type { AnalysisEvent } from './types.ts';

/** How often (in steps) runs that can no longer grow are dropped: they are the tracker's only unbounded state. */
const SWEEP_EVERY = 10_000;

/**
 * `detectStorms` over a stream, for the offline report: the storm tracker of every (client, server), stepped with
 * the gate's verdicts. The storms come without their attempt timelines, as lists show them (a timeline is per
 * attempt, and a storm may be as long as the log).
 *
 * Memory: per partition, the tracker's probe window and open runs, and the storms found (the output, in a store the
 * caller may spill to disk). The tracker keeps a key's run until that key is stepped again; here runs the partition
 * has moved past are swept out now and then, which changes nothing (a closed run is treated as no run).
 */
export interface StormStreams {
  /** client → server → tracker. */
  partitions: Map<string, Map<string, PartitionStormState>>;
  storms: StormStore;
  steps: number;
}

/** The storms found, by id, as they stand. */
export interface StormStore {
  set(id: string, storm: StormSummary): void;
  /** Every storm in list order (`byStormOrder`, as `detectStorms` orders them). */
  inListOrder(): Iterable<StormSummary>;
}

export function createStormStreams(storms: StormStore = stormsInMemory()): StormStreams {
  return { partitions: new Map(), storms, steps: 0 };
}

function stormsInMemory(): StormStore {
  const byId = new Map<string, StormSummary>();
  return { set: (id, storm) => byId.set(id, storm), inListOrder: () => [...byId.values()].sort(byStormOrder) };
}

/**
 * A text that sorts as `byStormOrder` does (first attempt's time, kind, id), for a store that sorts on disk. Times
 * are whole non-negative milliseconds; kinds and ids are ASCII, so byte order is code unit order.
 */
export function stormSortKey(storm: StormSummary): string {
  return `${String(storm.firstTs).padStart(16, '0')}|${storm.kind}|${storm.id}`;
}

/** Steps one event the gate judged, in the gate's order, with its verdict. */
export function stepStorms(acc: StormStreams, e: AnalysisEvent & { client: string }, verdict: GateVerdict): void {
  let servers = acc.partitions.get(e.client);
  if (servers === undefined) {
    servers = new Map();
    acc.partitions.set(e.client, servers);
  }
  let state = servers.get(e.server);
  if (state === undefined) {
    state = createStormState(e.client, e.server);
    servers.set(e.server, state);
  }
  for (const storm of stormStep(state, e, verdict.key, verdict.avoidable)) acc.storms.set(storm.id, storm);
  if (++acc.steps % SWEEP_EVERY === 0) sweepClosedRuns(acc);
}

/** Every storm found, in list order (`byStormOrder`, as `detectStorms` orders them). */
export function stormList(acc: StormStreams): StormSummary[] {
  return [...acc.storms.inListOrder()];
}

function sweepClosedRuns(acc: StormStreams): void {
  for (const servers of acc.partitions.values()) {
    for (const state of servers.values()) {
      const latest = state.now?.ts;
      if (latest === undefined) continue;
      for (const [key, run] of Object.entries(state.loops)) if (!runIsOpen(run, latest)) delete state.loops[key];
    }
  }
}
