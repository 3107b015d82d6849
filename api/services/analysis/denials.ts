import { denialCountsIn } from '../../../db/counters/denial-hours.ts';
import { breachesIn, type DenialScope } from '../../../db/queries/denials.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { denialSummary } from '../../../shared/analysis/denials.ts';
import { analysisLag } from '../analysis-lag.ts';

/** The latest denials that did not hold listed (the counts are of all of them): a day can hold a hundred thousand. */
export const DENIALS_LISTED = 200;

/**
 * The decision store's audit in a window (DOMAIN.md section 5): the denials that did not hold, their counts per
 * client and per server, and per client how its re-presented refusals were answered: replayed (the same refusal
 * again, the store working) or evaluated afresh (a denial that did not hold). The route's reader; the counts are
 * `denialCountsIn`'s, which the alert metric `denials_not_held` reads too (`lens report` audits its logs offline).
 */
export async function denialsIn(db: SqlRunner, scope: DenialScope) {
  const [items, { counts, replayed }, lag] = await Promise.all([
    breachesIn(db, scope, DENIALS_LISTED),
    denialCountsIn(db, scope),
    analysisLag(db),
  ]);
  return {
    from: new Date(scope.from).toISOString(),
    to: new Date(scope.to).toISOString(),
    ...denialSummary(items, replayed, counts),
    analysedThrough: lag.analysedThrough,
    lagMs: lag.lagMs,
  };
}
