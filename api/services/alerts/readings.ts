import { serverInfo, topIdentityRows } from '../../../db/queries/analysis.ts';
import { contextRows } from '../../../db/queries/context.ts';
import {
  type CountRow,
  conductRows,
  countRows,
  type Dimension,
  type RangeFilter,
} from '../../../db/queries/rollups.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import type { GroupBy, Metric } from '../../../shared/alerts/metrics.ts';
import type { RuleInput } from '../../../shared/alerts/rule.ts';
import {
  absentValue,
  type ContextLike,
  type GroupValue,
  isAnalysisMetric,
  valuesFromConduct,
  valuesFromContext,
  valuesFromCounts,
  valuesFromEvents,
  valuesFromSends,
} from '../../../shared/alerts/values.ts';
import type { AnalysisEvent } from '../../../shared/analysis/types.ts';
import { type Loaded, loadAnalysis } from '../analysis/load.ts';
import { STORM_LOOKBACK_MS } from '../analysis/traffic.ts';

export type Reading = Pick<RuleInput, 'metric' | 'scope' | 'groupBy' | 'windowSeconds'>;

interface Slice {
  from: number;
  to: number;
  server?: string;
  client?: string;
}

/**
 * Where the analysis metrics get their events: a preview loads its whole range once and slices it per point, an
 * evaluation round loads each scope once and slices it per rule.
 */
export interface EventSource {
  load(slice: Slice): Promise<Loaded>;
}

/**
 * One evaluation round at `end`: every scope's events from `earliest` (the longest window any due rule reads) are
 * loaded once, and each rule reads its own window from them.
 */
export function roundSource(db: SqlRunner, earliest: number, end: number): EventSource {
  const loaded = new Map<string, Promise<EventSource>>();
  return {
    async load(slice) {
      const key = JSON.stringify([slice.server ?? null, slice.client ?? null]);
      let scoped = loaded.get(key);
      if (scoped === undefined) {
        scoped = loadAnalysis(db, { ...slice, from: Math.min(earliest, slice.from), to: end }).then(preloadedSource);
        loaded.set(key, scoped);
      }
      return (await scoped).load(slice);
    },
  };
}

/** Events loaded once (ordered by ts, as loadAnalysis answers them), sliced by time in memory. */
function preloadedSource(all: Loaded): EventSource {
  const { events, verdicts } = all;
  return {
    async load(slice) {
      return { events: events.slice(firstAtOrAfter(events, slice.from), firstAtOrAfter(events, slice.to)), verdicts };
    },
  };
}

function firstAtOrAfter(events: readonly AnalysisEvent[], ts: number): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((events[mid] as AnalysisEvent).ts < ts) low = mid + 1;
    else high = mid;
  }
  return low;
}

function rollupDimensions(metric: Metric, groupBy: GroupBy): Dimension[] {
  const dims: Dimension[] = groupBy === 'server' || groupBy === 'client' ? [groupBy] : [];
  if (metric === 'undeclared_requests') dims.push('kind');
  return dims;
}

/** How far before its window an analysis metric reads, so that a storm running into the window is seen whole. */
function lookbackOf(metric: Metric): number {
  return metric === 'probe_storm_size' ? STORM_LOOKBACK_MS : 0;
}

/** How far back a rule reads: its window, and a storm metric's lookback before it. */
export function readSpanMs(rule: Reading): number {
  return rule.windowSeconds * 1000 + lookbackOf(rule.metric);
}

/** Readings of one round: rules that differ only in thresholds or targets share one reading. */
export function roundReader(
  db: SqlRunner,
  rules: readonly Reading[],
  end: number,
): (rule: Reading) => Promise<GroupValue[]> {
  // Only analysis metrics load events: a day-long rollup rule must not make every round read a day of them.
  const earliest = end - Math.max(0, ...rules.filter((rule) => isAnalysisMetric(rule.metric)).map(readSpanMs));
  const direct = storeReads(db, roundSource(db, earliest, end));
  let servers: Promise<string[]> | undefined;
  const reads: RoundReads = { ...direct, counts: memo(direct.counts), servers: () => (servers ??= direct.servers()) };
  const readings = memo((rule: Reading) => readMetric(db, reads, rule, end));
  // Rules differing only in thresholds, targets or timing read the same thing.
  return (rule) =>
    readings({
      metric: rule.metric,
      groupBy: rule.groupBy,
      windowSeconds: rule.windowSeconds,
      scope: { server: rule.scope.server, client: rule.scope.client },
    });
}

/** The reads a metric may need: the window's events, and counts from the rollups kept apart by some dimensions. */
export interface RoundReads {
  events: EventSource;
  counts(filter: RangeFilter & { dims: Dimension[] }): Promise<CountRow[]>;
  /** Every server known to the store, by name. */
  servers(): Promise<string[]>;
}

/** The reads that go straight to the store (a preview); a round memoizes them. */
export function storeReads(db: SqlRunner, events: EventSource): RoundReads {
  return {
    events,
    counts: ({ dims, ...filter }) => countRows(db, filter, null, dims),
    servers: async () => (await serverInfo(db)).map((server) => server.name),
  };
}

/** One call per distinct argument (compared as JSON); every metric that needs the same counts shares one read. */
function memo<A, R>(read: (argument: A) => Promise<R>): (argument: A) => Promise<R> {
  const done = new Map<string, Promise<R>>();
  return (argument) => {
    const key = JSON.stringify(argument);
    let result = done.get(key);
    if (result === undefined) {
      result = read(argument);
      done.set(key, result);
    }
    return result;
  };
}

/** A rule's metric per group over the window ending at `end`, as the dashboard computes it. */
export async function readMetric(db: SqlRunner, reads: RoundReads, rule: Reading, end: number): Promise<GroupValue[]> {
  const values = await readGroups(db, reads, rule, end);
  if (rule.groupBy !== 'server') return values;
  // Every known server has a reading, also one that sent nothing in the window: that is a count of 0 (what a
  // "fewer than" rule is for), or no reading for a rate.
  const seen = new Set(values.map((value) => value.group));
  const silent = (await reads.servers())
    .filter((server) => !seen.has(server) && (rule.scope.server === undefined || server === rule.scope.server))
    .map((server) => ({ group: server, value: absentValue(rule.metric), server }));
  return [...values, ...silent];
}

async function readGroups(db: SqlRunner, reads: RoundReads, rule: Reading, end: number): Promise<GroupValue[]> {
  const from = end - rule.windowSeconds * 1000;
  const scope = { ...rule.scope, from, to: end };
  if (rule.metric === 'retries_after_refusal') return valuesFromConduct(await conductRows(db, scope), rule.groupBy);
  if (rule.metric === 'identity_representations') {
    return valuesFromSends(await topIdentityRows(db, scope, null), rule.groupBy);
  }
  if (rule.metric === 'context_trim_rate') {
    // The context counts only ever hold the scopes ingest validated.
    return valuesFromContext((await contextRows(db, scope)) as ContextLike[], rule.groupBy);
  }
  if (!isAnalysisMetric(rule.metric)) {
    const rows = await reads.counts({ ...scope, dims: rollupDimensions(rule.metric, rule.groupBy) });
    return valuesFromCounts(rule.metric, rows, rule.groupBy);
  }
  const { events, verdicts } = await reads.events.load({ ...scope, from: from - lookbackOf(rule.metric) });
  return valuesFromEvents(rule.metric, { events, verdicts, from, to: end }, rule.groupBy);
}
