import { profileCounts } from '../../../db/counters/actionability.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { type ActionabilityAnswer, actionabilityAnswer } from '../../../shared/actionability/summary.ts';
import { analysisLag } from '../analysis-lag.ts';

export interface ActionabilityScope {
  from: number;
  to: number;
  server?: string | undefined;
  eventsFrom: number | null;
}

export interface ActionabilityView extends ActionabilityAnswer {
  from: string;
  to: string;
  /** As every analysis answer's headers say: the counts may still rise for events stored after this. */
  analysedThrough: string;
  lagMs: number;
}

/**
 * Seed 004's profiles of the counted failures over the window, both views, for the fleet (or the one server asked
 * for) and per server, ranked, with dominance between servers (shared/actionability/summary.ts): the one reader of
 * these numbers, for the route, the alert metric and the server page.
 */
export async function actionabilityIn(db: SqlRunner, scope: ActionabilityScope): Promise<ActionabilityView> {
  const [rows, lag] = await Promise.all([profileCounts(db, scope), analysisLag(db)]);
  return {
    from: new Date(scope.from).toISOString(),
    to: new Date(scope.to).toISOString(),
    analysedThrough: lag.analysedThrough,
    lagMs: lag.lagMs,
    ...actionabilityAnswer(rows),
  };
}
