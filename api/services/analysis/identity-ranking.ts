import {
  hourListCuts,
  identityEventSends,
  identityHourSends,
  listContenders,
} from '../../../db/counters/identities.ts';
import { countedHours, countRows } from '../../../db/counters/rollups.ts';
import { topIdentityRows } from '../../../db/queries/analysis.ts';
import type { EventFilter } from '../../../db/queries/events.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import {
  contenderBounds,
  countingPlan,
  countLikeliest,
  type HourSplit,
  hourCaps,
  type IdentitySends,
  type ListDepth,
  type ListedContender,
  splitHours,
  topSent,
  wholeHours,
  withinSentHours,
} from '../../../shared/analysis/identity-ranking.ts';
import { HOUR_MS } from '../../../shared/analysis/time-buckets.ts';
import type { Window } from './load.ts';

export interface RankingLimits {
  /**
   * List rows the window's whole hours may read in all. A longer list knows more candidates' sends, and a list row,
   * read in order, costs a fraction of the keyed lookup it saves.
   */
  wholeHourRows: number;
  /** List rows the part-hours at the edges may read in all: each of their contenders is counted in the events. */
  edgeRows: number;
  /** The longest list read of an hour; every list holds at least the `limit` asked for. */
  maxPerHour: number;
  /** Up to this many requests, grouping the window's events costs about what the hour lists do, and is exact. */
  groupUpTo: number;
  /** Contenders counted per round, the likeliest first: rounds are sequential, and most rankings end after one. */
  countPerRound: number;
}

export const RANKING_LIMITS: RankingLimits = {
  wholeHourRows: 40_000,
  edgeRows: 1_000,
  maxPerHour: 2_000,
  groupUpTo: 50_000,
  countPerRound: 250,
};

export interface IdentityRanking {
  /** The most sent identities of the window (sent more than once), most first. */
  identities: string[];
  /** False when an identity sent a little in many hours could be missing (ADR 7). */
  exact: boolean;
}

/** Where the raw events kept begin (null: all kept): before it, sends are only in the hour counts. */
type Scope = Window & Pick<EventFilter, 'server' | 'client'>;

/**
 * The `limit` most sent identities of a window: the candidates are each touched hour's most sent identities
 * (identity_hour); those the lists cannot rule out are counted exactly over the window. When that cannot be certain
 * of its top and the window is small, and with a client filter (a client's sends are not kept per hour), the
 * window's events are grouped instead.
 */
export async function rankIdentities(
  db: SqlRunner,
  scope: Scope,
  limit: number,
  limits = RANKING_LIMITS,
): Promise<IdentityRanking> {
  if (scope.client !== undefined) return groupedRanking(db, scope, limit);
  const sent = await sentPart(db, scope);
  if (sent === null) return { identities: [], exact: true };
  const fromHours = await hourListRanking(db, sent, limit, limits);
  if (fromHours.exact || !eventsKept(sent) || (await requestsIn(db, sent)) > limits.groupUpTo) return fromHours;
  return groupedRanking(db, sent, limit);
}

/**
 * The part of the window in the hours that hold counted requests (of its server), or null: its hours are all the
 * hour lists need to read, and sends outside them there are none to bound.
 */
export async function sentPart<S extends Window & { server?: string }>(db: SqlRunner, scope: S): Promise<S | null> {
  const part = withinSentHours(scope, await countedHours(db, scope.server));
  return part === null ? null : { ...scope, ...part };
}

/** Whether every event of the window is kept: before retention's horizon, sends are only in the hour counts. */
function eventsKept(scope: Scope): boolean {
  return scope.eventsFrom == null || scope.eventsFrom <= scope.from;
}

async function groupedRanking(db: SqlRunner, scope: Scope, limit: number): Promise<IdentityRanking> {
  const rows = await topIdentityRows(db, scope, limit);
  return { identities: rows.map((row) => row.identity), exact: true };
}

async function requestsIn(db: SqlRunner, scope: Scope): Promise<number> {
  const rows = await countRows(db, scope, null, []);
  return rows.reduce((sum, row) => sum + row.requests, 0);
}

/**
 * With a server, the lists of all servers are tried first: they bound its identities as well, and the partial index
 * holds them in order, while the server's own lists are picked out of every re-sent identity of each hour (at 10M
 * events a day, ~190 ms for a day). Only when they cannot be sure of its top are its own lists read.
 */
async function hourListRanking(
  db: SqlRunner,
  scope: Scope,
  limit: number,
  limits: RankingLimits,
): Promise<IdentityRanking> {
  if (scope.server !== undefined) {
    const fromAll = await rankFromLists(db, scope, limit, limits, undefined);
    if (fromAll.exact) return fromAll;
  }
  return rankFromLists(db, scope, limit, limits, scope.server);
}

/** The ranking of the window's identities (of its server) from the hour lists of `listed` (all servers if none). */
async function rankFromLists(
  db: SqlRunner,
  scope: Scope,
  limit: number,
  limits: RankingLimits,
  listed: string | undefined,
): Promise<IdentityRanking> {
  const split = splitHours(scope.from, scope.to);
  const depthOf = listDepths(split, limit, limits);
  const { hours, unlisted } = hourCaps(await hourListCuts(db, { ...split, server: listed }, depthOf), split);
  const contenders = await listContenders(db, hours, { server: scope.server, n: limit, unlisted });
  const whole = wholeHours(split);
  // A contender on the lists of every whole hour is counted in its part-hours alone; any other, in every whole hour.
  const onEveryList = new Map(
    contenders.flatMap((contender) =>
      contender.listedHours === whole.length ? [[contender.identity, contender]] : [],
    ),
  );
  const probes = (identity: string) => (onEveryList.has(identity) ? 0 : whole.length);
  const counted = await countLikeliest(
    contenderBounds(contenders, hours, scope),
    limit,
    limits.countPerRound,
    async (round) => {
      const { fromEvents, fromHours } = countingPlan(round, probes, eventsKept(scope));
      const [inEvents, inHours] = await Promise.all([
        identityEventSends(db, fromEvents, scope),
        exactSends(db, fromHours, split, onEveryList),
      ]);
      return [...inEvents, ...inHours];
    },
  );
  const { ranked, exact } = topSent(counted, limit, unlisted);
  return { identities: ranked.map((row) => row.identity), exact };
}

/**
 * Each identity's counted sends in the window: its whole hours from the hour counts, or from its list rows when it
 * is on every whole hour's list (`onEveryList`), its part-hours from the events.
 */
async function exactSends(
  db: SqlRunner,
  names: readonly string[],
  split: HourSplit,
  onEveryList: ReadonlyMap<string, ListedContender>,
): Promise<IdentitySends[]> {
  if (names.length === 0) return [];
  const probed = names.filter((identity) => !onEveryList.has(identity));
  const parts = await Promise.all([
    identityHourSends(db, probed, wholeHours(split)),
    ...split.edges.map(([from, to]) => identityEventSends(db, names, { from, to })),
  ]);
  const sends = new Map(names.map((identity) => [identity, onEveryList.get(identity)?.listed ?? 0]));
  for (const row of parts.flat()) sends.set(row.identity, (sends.get(row.identity) ?? 0) + row.sends);
  return [...sends].map(([identity, total]) => ({ identity, sends: total }));
}

/** How long a list each hour reads: the whole hours share `wholeHourRows`, the part-hours `edgeRows`. */
function listDepths(split: HourSplit, limit: number, limits: RankingLimits): ListDepth {
  const wholeHours = Math.max(0, (split.innerTo - split.innerFrom) / HOUR_MS);
  const depth = (rows: number, hours: number) =>
    Math.max(limit, Math.min(limits.maxPerHour, Math.floor(rows / Math.max(1, hours))));
  const whole = depth(limits.wholeHourRows, wholeHours);
  const edge = depth(limits.edgeRows, split.edges.length);
  return (start) => (start >= split.innerFrom && start < split.innerTo ? whole : edge);
}
