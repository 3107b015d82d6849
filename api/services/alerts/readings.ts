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
import { instancesOfRule } from '../../../db/queries/alerts.ts';
import {
  identitiesSentAtLeast,
  mostSendsPerServer,
  serverInfo,
  topIdentityRows,
} from '../../../db/queries/analysis.ts';
import { type StormScope, stormRows, stormsComplete } from '../../../db/queries/storms.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import type { GroupBy, Metric } from '../../../shared/alerts/metrics.ts';
import type { Rule, RuleInput } from '../../../shared/alerts/rule.ts';
import { lowestThreshold } from '../../../shared/alerts/state.ts';
import {
  absentValue,
  type ContextLike,
  type GroupValue,
  type SendsLike,
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

export type Reading = Pick<RuleInput, 'metric' | 'scope' | 'groupBy' | 'windowSeconds'> & { narrow?: Narrowing };

/**
 * Groups a reading may leave out: those whose value is below `floor` and that are not in `keep` (the groups the rule
 * has an instance of). Only a rule grouped by identity narrows: its window may hold a hundred thousand identities
 * sent twice, and reading each as a row every minute took ~30 MB and ~0.4 s at 1,000 events/s (issue 39's soak).
 */
export interface Narrowing {
  floor: number;
  keep: readonly string[];
}

/**
 * How a rule's reading may be narrowed (shared/alerts/state.ts lowestThreshold): read before its round, which only
 * goes ahead if no other evaluator moved the rule meanwhile, so its instances are still those read here.
 */
export async function narrowingOf(db: SqlRunner, rule: Rule): Promise<Narrowing | undefined> {
  const floor = rule.groupBy === 'identity' ? lowestThreshold(rule) : null;
  if (floor === null) return undefined;
  return { floor, keep: (await instancesOfRule(db, rule.id)).map((row) => row.groupKey) };
}

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
      narrow: rule.narrow,
    });
}

/**
 * The reads metrics share in a round: counts from the rollups kept apart by some dimensions, the sends of the
 * window's re-sent identities and its storms (the same for every grouping of a metric), the servers.
 */
export interface RoundReads {
  counts(filter: RangeFilter & { dims: Dimension[] }): Promise<CountRow[]>;
  /** The sends of the identities a grouping needs (none: the most sent; server: each server's most sent). */
  sends(filter: RangeFilter & { groupBy: GroupBy; narrow?: Narrowing }): Promise<SendsLike[]>;
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
    sends: ({ groupBy, narrow, ...filter }) => identitySendsFor(db, filter, groupBy, narrow),
    storms: (scope) => stormRows(db, scope),
    servers: async () => (await serverInfo(db)).map((server) => server.name),
    eventsFrom: async () => (await keptData(db)).eventsFrom,
  };
}

/** What `valuesFromSends` reads for a grouping, reduced in the store to the rows it keeps. */
async function identitySendsFor(
  db: SqlRunner,
  filter: RangeFilter,
  groupBy: GroupBy,
  narrow: Narrowing | undefined,
): Promise<SendsLike[]> {
  if (groupBy === 'none') return topIdentityRows(db, filter, 1);
  if (groupBy === 'server') return (await mostSendsPerServer(db, filter)).map((row) => ({ ...row, identity: '' }));
  if (narrow === undefined) return topIdentityRows(db, filter, null);
  // A value is the sends after the first (shared/analysis/identities.ts representations).
  return identitiesSentAtLeast(db, filter, Math.ceil(narrow.floor + 1), narrow.keep);
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
    return valuesFromSends(await reads.sends({ ...scope, groupBy: rule.groupBy, narrow: rule.narrow }), rule.groupBy);
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
