import { profileCounts } from '../../../db/counters/actionability.ts';
import { contextRows } from '../../../db/counters/context.ts';
import { denialCountsIn } from '../../../db/counters/denial-hours.ts';
import {
  type CountRow,
  conductRows,
  countRows,
  type Dimension,
  type RangeFilter,
} from '../../../db/counters/rollups.ts';
import { type IdentityRow, serverInfo, topIdentityRows } from '../../../db/queries/analysis.ts';
import { type StormScope, stormRows, stormsComplete } from '../../../db/queries/storms.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import type { GroupBy, Metric } from '../../../shared/alerts/metrics.ts';
import type { RuleInput } from '../../../shared/alerts/rule.ts';
import {
  absentValue,
  type ContextLike,
  type GroupValue,
  valuesFromConduct,
  valuesFromContext,
  valuesFromCounts,
  valuesFromDenials,
  valuesFromProfiles,
  valuesFromSends,
  valuesFromStorms,
} from '../../../shared/alerts/values.ts';
import type { StormSummary } from '../../../shared/analysis/storm-model.ts';
import { keptData } from '../retention.ts';
import { ServiceError } from '../service-error.ts';

export type Reading = Pick<RuleInput, 'metric' | 'scope' | 'groupBy' | 'windowSeconds'>;

/**
 * A reading that cannot be taken yet: rather than judge on partial data, the round changes no alert state, records
 * this as the rule's last error and is tried again at the next interval. Its code, `unavailable`, is what the engine
 * recognises to keep it out of the server log (a preview answers it as 503 with Retry-After).
 */
function stormsNotReady(): ServiceError {
  return new ServiceError('unavailable', 'the storms of earlier events are still being built', {
    fix: 'Wait: the server builds them once after an upgrade, in the background.',
    retryAfterSeconds: 30,
  });
}

function rollupDimensions(metric: Metric, groupBy: GroupBy): Dimension[] {
  const dims: Dimension[] = groupBy === 'server' || groupBy === 'client' ? [groupBy] : [];
  if (metric === 'undeclared_requests') dims.push('kind');
  return dims;
}

/** Readings of one round: rules that differ only in thresholds or targets share one reading. */
export function roundReader(db: SqlRunner, end: number): (rule: Reading) => Promise<GroupValue[]> {
  const direct = storeReads(db);
  let servers: Promise<string[]> | undefined;
  let eventsFrom: Promise<number | null> | undefined;
  const reads: RoundReads = {
    counts: memo(direct.counts),
    sends: memo(direct.sends),
    storms: memo(direct.storms),
    servers: () => (servers ??= direct.servers()),
    eventsFrom: () => (eventsFrom ??= direct.eventsFrom()),
  };
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

/**
 * The reads metrics share in a round: counts from the rollups kept apart by some dimensions, the sends of the
 * window's re-sent identities and its storms (the same for every grouping of a metric), the servers.
 */
export interface RoundReads {
  counts(filter: RangeFilter & { dims: Dimension[] }): Promise<CountRow[]>;
  sends(filter: RangeFilter): Promise<IdentityRow[]>;
  storms(scope: StormScope): Promise<StormSummary[]>;
  /** Every server known to the store, by name. */
  servers(): Promise<string[]>;
  /** Where the raw events kept begin: a window's older part is read from the hour counts. */
  eventsFrom(): Promise<number | null>;
}

/** The reads that go straight to the store (a preview); a round memoizes them. */
export function storeReads(db: SqlRunner): RoundReads {
  return {
    counts: ({ dims, ...filter }) => countRows(db, filter, null, dims),
    sends: (filter) => topIdentityRows(db, filter, null),
    storms: (scope) => stormRows(db, scope),
    servers: async () => (await serverInfo(db)).map((server) => server.name),
    eventsFrom: async () => (await keptData(db)).eventsFrom,
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
  const scope = { ...rule.scope, from, to: end, eventsFrom: await reads.eventsFrom() };
  if (rule.metric === 'retries_after_refusal') {
    return valuesFromConduct(await conductRows(db, scope, rule.groupBy === 'server'), rule.groupBy);
  }
  if (rule.metric === 'identity_representations') {
    return valuesFromSends(await reads.sends(scope), rule.groupBy);
  }
  if (rule.metric === 'context_trim_rate') {
    // The context counts only ever hold the scopes ingest validated.
    return valuesFromContext((await contextRows(db, scope, null)) as ContextLike[], rule.groupBy);
  }
  if (rule.metric === 'denials_not_held') {
    return valuesFromDenials((await denialCountsIn(db, scope)).counts, rule.groupBy);
  }
  if (
    rule.metric === 'failures_without_policy' ||
    rule.metric === 'hidden_failures' ||
    rule.metric === 'hidden_throttles'
  ) {
    return valuesFromProfiles(rule.metric, await profileCounts(db, scope), rule.groupBy);
  }
  if (rule.metric === 'probe_storm_size') {
    // Judged on a partial list, a storm not yet built would read as over: wait for the build instead.
    if (!(await stormsComplete(db))) throw stormsNotReady();
    return valuesFromStorms(await reads.storms({ ...scope, kind: 'probe_storm' }), rule.groupBy);
  }
  const rows = await reads.counts({ ...scope, dims: rollupDimensions(rule.metric, rule.groupBy) });
  return valuesFromCounts(rule.metric, rows, rule.groupBy);
}
