import {
  type ActionabilityCounts,
  countViews,
  type ServerProfileCount,
  withoutPolicyShare,
} from '../actionability/summary.ts';
import { addContextCount, type ContextGap, emptyContextGap, trimRate } from '../analysis/context-gap.ts';
import type { DenialCounts } from '../analysis/denials.ts';
import { representations } from '../analysis/identities.ts';
import type { ContextScope } from '../analysis/types.ts';
import { BUCKETS } from '../classify/types.ts';
import { shareOf } from '../share.ts';
import { type GroupBy, isRatio, type Metric } from './metrics.ts';

/**
 * One alert instance's reading: `group` is '' for an ungrouped rule, else the server, client or identity. `value` is
 * null when the metric has no reading (a rate over no requests). `server` names the server the reading is about,
 * when there is one, so that firing alerts can be shown on that server's page.
 */
export interface GroupValue {
  group: string;
  value: number | null;
  server: string | null;
}

/** The fields of a rollup count row (db/counters/rollups.ts CountRow) the metrics read. */
export interface CountLike {
  server: string;
  /** '' when the requests named no client. */
  client: string;
  bucket: string;
  kind: string;
  requests: number;
  avoidable: number;
}

interface Tally {
  requests: number;
  matched: number;
  server: string | null;
}

/** What a rollup metric counts of one row, or null for metrics that are not read from rollups. */
function numerator(metric: Metric, row: CountLike): number | null {
  if (metric === 'avoidable_count' || metric === 'avoidable_share') return row.avoidable;
  if (metric === 'undeclared_requests') return row.kind === 'not_declared' ? row.requests : 0;
  const [bucket, form] = metric.split(/_(?=count$|rate$)/);
  if (!(BUCKETS as readonly (string | undefined)[]).includes(bucket)) return null;
  if (form === 'count' || form === 'rate') return row.bucket === bucket ? row.requests : 0;
  return null;
}

/** The reading of a group with no traffic left in the window: a count of 0; a ratio has none. */
export function absentValue(metric: Metric): number | null {
  return isRatio(metric) ? null : 0;
}

/**
 * Rollup metrics from count rows kept by `groupBy` (server or client; both folded for 'none'). An ungrouped rule
 * always has a reading: no rows is a count of 0, and a rate with no data.
 */
export function valuesFromCounts(metric: Metric, rows: readonly CountLike[], groupBy: GroupBy): GroupValue[] {
  const tallies = new Map<string, Tally>();
  if (groupBy === 'none') tallies.set('', { requests: 0, matched: 0, server: null });
  for (const row of rows) {
    const count = numerator(metric, row);
    if (count === null) throw new RangeError(`${metric} is not a rollup metric`);
    const group = groupBy === 'server' ? row.server : groupBy === 'client' ? row.client : '';
    const tally = tallies.get(group) ?? { requests: 0, matched: 0, server: groupBy === 'server' ? row.server : null };
    tally.requests += row.requests;
    tally.matched += count;
    tallies.set(group, tally);
  }
  return [...tallies].map(([group, tally]) => ({
    group,
    server: tally.server,
    value: isRatio(metric) ? shareOf(tally.matched, tally.requests) : tally.matched,
  }));
}

/** One (client, server)'s conduct counters as the rollups keep them (db/counters/rollups.ts ConductRow). */
export interface ConductLike {
  client: string;
  server: string;
  after_refusal: number;
}

/** Retries after a refusal per group, from the conduct counters GET /clients reads. */
export function valuesFromConduct(rows: readonly ConductLike[], groupBy: GroupBy): GroupValue[] {
  const sums = new Map<string, GroupValue>();
  if (groupBy === 'none') sums.set('', { group: '', value: 0, server: null });
  for (const row of rows) {
    const group = groupBy === 'server' ? row.server : groupBy === 'client' ? row.client : '';
    const sum = sums.get(group) ?? { group, value: 0, server: groupBy === 'server' ? row.server : null };
    sum.value = (sum.value ?? 0) + row.after_refusal;
    sums.set(group, sum);
  }
  return [...sums.values()];
}

/** An identity sent more than once in the window (db/queries/analysis.ts IdentityRow). */
export interface SendsLike {
  identity: string;
  server: string;
  sends: number;
}

/**
 * Re-presentations of the most re-presented identity per group: its sends in the window after the first, as GET
 * /identities ranks them. An identity sent once was not re-presented; an ungrouped rule reads 0 when none was.
 */
export function valuesFromSends(rows: readonly SendsLike[], groupBy: GroupBy): GroupValue[] {
  const most = new Map<string, GroupValue>();
  if (groupBy === 'none') most.set('', { group: '', value: 0, server: null });
  for (const row of rows) {
    const group = groupBy === 'identity' ? row.identity : groupBy === 'server' ? row.server : '';
    const value = representations(row.sends);
    const current = most.get(group);
    if (current === undefined || (current.value ?? 0) < value) {
      most.set(group, { group, value, server: groupBy === 'none' ? null : row.server });
    }
  }
  return [...most.values()];
}

/** One row of context counts (db/counters/context.ts ContextRow). */
export interface ContextLike {
  start: number;
  server: string;
  requested: ContextScope;
  applied: ContextScope | null;
  reason: string | null;
  requests: number;
}

/** The context trim rate per group, folded by the accumulator GET /context-gap reads; nothing reported: no data. */
export function valuesFromContext(rows: readonly ContextLike[], groupBy: GroupBy): GroupValue[] {
  const gaps = new Map<string, ContextGap>();
  if (groupBy === 'none') gaps.set('', emptyContextGap());
  for (const row of rows) {
    const group = groupBy === 'server' ? row.server : '';
    const gap = gaps.get(group) ?? emptyContextGap();
    addContextCount(gap, row.start, row, row.requests);
    gaps.set(group, gap);
  }
  return [...gaps].map(([group, gap]) => ({
    group,
    value: trimRate(gap),
    server: groupBy === 'server' ? group : null,
  }));
}

/** A storm as GET /storms lists it (db/queries/storms.ts). */
export interface StormLike {
  client: string;
  server: string;
  attempts: number;
}

/**
 * Attempts in the largest probe storm per group, of the storms GET /storms lists for the window (whole, also where
 * they reach outside it). An ungrouped rule reads 0 when there was none.
 */
export function valuesFromStorms(storms: readonly StormLike[], groupBy: GroupBy): GroupValue[] {
  const largest = new Map<string, GroupValue>();
  if (groupBy === 'none') largest.set('', { group: '', value: 0, server: null });
  for (const storm of storms) {
    const group = groupBy === 'server' ? storm.server : groupBy === 'client' ? storm.client : '';
    const current = largest.get(group);
    if (current === undefined || (current.value ?? 0) < storm.attempts) {
      largest.set(group, { group, value: storm.attempts, server: groupBy === 'none' ? null : storm.server });
    }
  }
  return [...largest.values()];
}

/**
 * Denials that did not hold (shared/analysis/denials.ts), counted per group from the counts GET /denials answers. An ungrouped
 * rule always has a reading: none is a count of 0.
 */
export function valuesFromDenials(counts: DenialCounts, groupBy: GroupBy): GroupValue[] {
  if (groupBy === 'server')
    return Object.entries(counts.byServer).map(([server, value]) => ({ group: server, value, server }));
  if (groupBy === 'client')
    return Object.entries(counts.byClient).map(([client, value]) => ({ group: client, value, server: null }));
  return [{ group: '', value: counts.total, server: null }];
}

/**
 * The actionability metrics per group from the counted failures per server and packed profiles
 * (db/counters/actionability.ts), as GET /actionability reads them: `failures_without_policy` (a group without
 * failures has no reading), `hidden_failures` and `hidden_throttles` (counts: none is 0 for an ungrouped rule).
 */
export function valuesFromProfiles(
  metric: Extract<Metric, 'failures_without_policy' | 'hidden_failures' | 'hidden_throttles'>,
  rows: readonly ServerProfileCount[],
  groupBy: GroupBy,
): GroupValue[] {
  const groups = new Map<string, ServerProfileCount[]>();
  if (groupBy === 'none') groups.set('', []);
  for (const row of rows) {
    const group = groupBy === 'server' ? row.server : '';
    groups.set(group, [...(groups.get(group) ?? []), row]);
  }
  return [...groups].map(([group, counts]) => ({
    group,
    server: groupBy === 'server' ? group : null,
    value: valueOfProfiles(metric, countViews(counts)),
  }));
}

function valueOfProfiles(metric: Parameters<typeof valuesFromProfiles>[0], counts: ActionabilityCounts): number | null {
  if (metric === 'hidden_failures') return counts.hidden.failures;
  if (metric === 'hidden_throttles') return counts.hidden.throttles;
  return withoutPolicyShare(counts.control);
}
