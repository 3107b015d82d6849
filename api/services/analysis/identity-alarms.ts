import { busyIdentities, seedHours } from '../../../db/queries/identities.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { alarmSpans, halfSends } from '../../../shared/analysis/alarm-candidates.ts';
import { REPRESENTATION_ALARM } from '../../../shared/analysis/identities.ts';
import { splitHours } from '../../../shared/analysis/identity-ranking.ts';
import { sentPart } from './identity-ranking.ts';
import type { Window } from './load.ts';

/**
 * The identities whose sends can be over the re-presentation alarm in the window (seed 002: 40 in 10 minutes): hours
 * of many sends first, then, around them, 10-minute buckets of many sends. A superset of the alarmed, never missing
 * one; with a client filter, of all clients' sends.
 */
export async function alarmCandidates(db: SqlRunner, window: Window & { server?: string }): Promise<string[]> {
  const scope = await sentPart(db, window);
  if (scope === null) return [];
  const seeds = await seedHours(db, { ...splitHours(scope.from, scope.to), server: scope.server }, halfSends());
  const spans = [...alarmSpans(seeds, scope)].flatMap(([identity, list]) =>
    list.map(([from, to]) => [identity, from, to] as const),
  );
  return busyIdentities(db, spans, REPRESENTATION_ALARM.windowMs, halfSends());
}
