import type { GateVerdict } from './gate-types.ts';
import { stormFact } from './storm-facts.ts';
import { byStormOrder } from './storm-model.ts';
import { createStormState, type FoundStorm, PartitionStorms } from './storm-tracker.ts';
import type { AnalysisEvent } from './types.ts';

/** How often (in steps) the storms that became final are handed to the store, and closed runs dropped. */
const DRAIN_EVERY = 10_000;

/**
 * The storms of a stream, for the offline report: the storm tracker of every (client, server), stepped with the
 * gate's verdicts, with each storm's attempt ids. Storms come without their timelines (a timeline is per attempt, and
 * a storm may be as long as the log); `finishStorms` hands out those still open when the stream ends.
 *
 * Memory: per partition, the tracker's undecided tail and open runs; the storms found go to a store the caller may
 * spill to disk, each as it becomes final.
 */
export interface StormStreams {
  /** client → server → tracker. */
  partitions: Map<string, Map<string, PartitionStorms>>;
  storms: StormStore;
  steps: number;
}

/** The storms found, by id, as they stand. */
export interface StormStore {
  set(id: string, storm: FoundStorm): void;
  /** Every storm in list order (`byStormOrder`, as `detectStorms` orders them). */
  inListOrder(): Iterable<FoundStorm>;
}

export function createStormStreams(storms: StormStore = stormsInMemory()): StormStreams {
  return { partitions: new Map(), storms, steps: 0 };
}

function stormsInMemory(): StormStore {
  const byId = new Map<string, FoundStorm>();
  return { set: (id, storm) => byId.set(id, storm), inListOrder: () => [...byId.values()].sort(byStormOrder) };
}

/**
 * A text that sorts as `byStormOrder` does (first attempt's time, kind, id), for a store that sorts on disk. Times
 * are whole non-negative milliseconds; kinds and ids are ASCII, so byte order is code unit order.
 */
export function stormSortKey(storm: FoundStorm): string {
  return `${String(storm.firstTs).padStart(16, '0')}|${storm.kind}|${storm.id}`;
}

/** Steps one event the gate judged, in the gate's order, with its verdict. */
export function stepStorms(acc: StormStreams, e: AnalysisEvent & { client: string }, verdict: GateVerdict): void {
  let servers = acc.partitions.get(e.client);
  if (servers === undefined) {
    servers = new Map();
    acc.partitions.set(e.client, servers);
  }
  let tracker = servers.get(e.server);
  if (tracker === undefined) {
    tracker = new PartitionStorms(createStormState(e.client, e.server, true));
    servers.set(e.server, tracker);
  }
  tracker.step(stormFact(e, verdict));
  if (++acc.steps % DRAIN_EVERY === 0) drainFinal(acc);
}

/** Once the stream has ended: every storm, those still open included, in the store. */
export function finishStorms(acc: StormStreams): void {
  for (const servers of acc.partitions.values()) {
    for (const tracker of servers.values()) {
      const { final, current } = tracker.flush();
      for (const storm of [...final, ...current]) acc.storms.set(storm.id, storm);
    }
  }
}

/** Every storm found, in list order; call `finishStorms` first. */
export function stormList(acc: StormStreams): FoundStorm[] {
  return [...acc.storms.inListOrder()];
}

function drainFinal(acc: StormStreams): void {
  for (const servers of acc.partitions.values()) {
    for (const tracker of servers.values()) for (const storm of tracker.takeFinal()) acc.storms.set(storm.id, storm);
  }
}
