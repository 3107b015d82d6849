import { pendingLag } from '../../db/queries/gate-pending.ts';
import type { Store } from '../../db/runner.ts';

/**
 * How far the analysis trails the stored events: the partitions whose gate replay runs behind the commit
 * (api/services/gate-maintenance.ts) and how long the oldest of them has waited. The one home of the number that
 * /health reports, the dashboard shows and ingest's back-pressure reads.
 */
export interface AnalysisLag {
  pendingPartitions: number;
  lagMs: number;
}

/** Wall-clock time, as the store's `since` is written: lag is about this process's work, not about the logs' time. */
export async function analysisLag(store: Store): Promise<AnalysisLag> {
  const { partitions, since } = await pendingLag(store);
  return { pendingPartitions: partitions, lagMs: since === null ? 0 : Math.max(0, Date.now() - since) };
}
