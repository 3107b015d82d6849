import { identitySendTimes, seedHours } from '../../../db/queries/identities.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { alarmSpans, reachesAlarm, seedSends } from '../../../shared/analysis/alarm-candidates.ts';
import { splitHours } from '../../../shared/analysis/identity-ranking.ts';
import type { Window } from './load.ts';

/**
 * The identities whose sends can be over the re-presentation alarm in the window (seed 002: 40 in 10 minutes):
 * hours of many sends first, then the send times around them. A superset of the alarmed, never missing one; with
 * a client filter, of all clients' sends.
 */
export async function alarmCandidates(db: SqlRunner, scope: Window & { server?: string }): Promise<string[]> {
  const seeds = await seedHours(db, { ...splitHours(scope.from, scope.to), server: scope.server }, seedSends());
  const spans = alarmSpans(seeds, scope);
  const sends = await identitySendTimes(
    db,
    [...spans].flatMap(([identity, list]) => list.map(([from, to]) => [identity, from, to] as const)),
  );
  const times = new Map<string, number[]>();
  for (const { identity, ts } of sends) {
    const list = times.get(identity);
    if (list === undefined) times.set(identity, [ts]);
    else list.push(ts);
  }
  return [...times].filter(([, list]) => reachesAlarm(list)).map(([identity]) => identity);
}
