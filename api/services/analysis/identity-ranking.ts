import { topIdentityRows } from '../../../db/queries/analysis.ts';
import type { EventFilter } from '../../../db/queries/events.ts';
import { hourlyTopIdentities, identityEventSends, identityHourSends } from '../../../db/queries/identities.ts';
import { countRows } from '../../../db/queries/rollups.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { splitHours, topSent, unlistedBound } from '../../../shared/analysis/identity-ranking.ts';
import { HOUR_MS } from '../../../shared/analysis/time-buckets.ts';
import type { Window } from './load.ts';

export interface RankingLimits {
  /** How many candidates a window's hour lists may give in all; each hour lists at least the `limit` asked for. */
  candidates: number;
  maxPerHour: number;
  /** Up to this many requests, grouping the window's events costs about what the hour lists do, and is exact. */
  groupUpTo: number;
}

export const RANKING_LIMITS: RankingLimits = { candidates: 2000, maxPerHour: 500, groupUpTo: 50_000 };

export interface IdentityRanking {
  /** The most sent identities of the window (sent more than once), most first. */
  identities: string[];
  /** False when an identity sent a little in many hours could be missing (ADR 7). */
  exact: boolean;
}

type Scope = Window & Pick<EventFilter, 'server' | 'client'>;

/**
 * The `limit` most sent identities of a window: the candidates are each touched hour's most sent identities
 * (identity_hour), counted exactly over the window. When that cannot be certain of its top and the window is small,
 * and with a client filter (a client's sends are not kept per hour), the window's events are grouped instead.
 */
export async function rankIdentities(
  db: SqlRunner,
  scope: Scope,
  limit: number,
  limits = RANKING_LIMITS,
): Promise<IdentityRanking> {
  if (scope.client !== undefined) return groupedRanking(db, scope, limit);
  const fromHours = await hourListRanking(db, scope, limit, limits);
  if (fromHours.exact || (await requestsIn(db, scope)) > limits.groupUpTo) return fromHours;
  return groupedRanking(db, scope, limit);
}

async function groupedRanking(db: SqlRunner, scope: Scope, limit: number): Promise<IdentityRanking> {
  const rows = await topIdentityRows(db, scope, limit);
  return { identities: rows.map((row) => row.identity), exact: true };
}

async function requestsIn(db: SqlRunner, scope: Scope): Promise<number> {
  const rows = await countRows(db, scope, null, []);
  return rows.reduce((sum, row) => sum + row.requests, 0);
}

async function hourListRanking(
  db: SqlRunner,
  scope: Scope,
  limit: number,
  limits: RankingLimits,
): Promise<IdentityRanking> {
  const split = splitHours(scope.from, scope.to);
  const hours = (split.toHour - split.fromHour) / HOUR_MS;
  const perHour = Math.max(limit, Math.min(limits.maxPerHour, Math.floor(limits.candidates / hours)));
  const lists = await hourlyTopIdentities(db, { ...split, server: scope.server }, perHour);
  const candidates = [...new Set(lists.map((row) => row.identity))];
  const parts = await Promise.all([
    identityHourSends(db, candidates, { fromHour: split.innerFrom, toHour: split.innerTo }),
    ...split.edges.map(([from, to]) => identityEventSends(db, candidates, { from, to })),
  ]);
  const sends = new Map<string, number>();
  for (const row of parts.flat()) sends.set(row.identity, (sends.get(row.identity) ?? 0) + row.sends);
  const counted = [...sends].map(([identity, total]) => ({ identity, sends: total }));
  const { ranked, exact } = topSent(counted, limit, unlistedBound(lists, split, perHour));
  return { identities: ranked.map((row) => row.identity), exact };
}
