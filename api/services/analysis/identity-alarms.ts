import { busySlotHours } from '../../../db/counters/identities.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { alarmCandidateIds, halfSends } from '../../../shared/analysis/alarm-candidates.ts';
import { splitHours } from '../../../shared/analysis/identity-ranking.ts';
import { sentPart } from './identity-ranking.ts';
import type { Window } from './load.ts';

/**
 * The identities whose sends can be over the re-presentation alarm in the window (seed 002: 40 in 10 minutes): those
 * with a 10-minute slot of many sends. A superset of the alarmed, never missing one; with a client filter, of all
 * clients' sends.
 */
export async function alarmCandidates(db: SqlRunner, window: Window & { server?: string }): Promise<string[]> {
  const scope = await sentPart(db, window);
  if (scope === null) return [];
  const hours = await busySlotHours(db, { ...splitHours(scope.from, scope.to), server: scope.server }, halfSends());
  return alarmCandidateIds(hours, scope);
}
