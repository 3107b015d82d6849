import { queueLag } from '../../db/queries/fold-queue.ts';
import { pendingLag } from '../../db/queries/gate-pending.ts';
import type { SqlRunner } from '../../db/runner.ts';

/**
 * How far the analysis trails the stored events: the events stored but not yet folded into the counts
 * (api/services/fold.ts), the partitions whose gate replay runs behind the commit (api/services/gate-maintenance.ts),
 * and how long the oldest of either has waited. The one home of the number that /health and every analysis answer
 * report, the dashboard shows and ingest's back-pressure reads.
 */
export interface AnalysisLag {
  /** Events stored and not yet in any count. */
  pendingEvents: number;
  pendingPartitions: number;
  lagMs: number;
  /** ISO time before which every stored event is analysed: now, less the lag. */
  analysedThrough: string;
}

/** Wall-clock time, as the store's stamps are written: lag is about this process's work, not about the logs' time. */
export async function analysisLag(db: SqlRunner): Promise<AnalysisLag> {
  const [queue, replays] = await Promise.all([queueLag(db), pendingLag(db)]);
  const now = Date.now();
  const oldest = Math.min(queue.since ?? now, replays.since ?? now);
  const lagMs = Math.max(0, now - oldest);
  return {
    pendingEvents: queue.events,
    pendingPartitions: replays.partitions,
    lagMs,
    analysedThrough: new Date(now - lagMs).toISOString(),
  };
}
