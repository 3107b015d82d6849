import { useQuery } from '@tanstack/react-query';
import { formatCount, formatDuration } from '../format.ts';
import { healthQuery } from '../queries/health.ts';

/** Below this the lag is the replay loop's normal rhythm, not news. */
const SHOWN_FROM_MS = 5_000;

/**
 * Says when the analysis trails the stored events: every count is there, but the gate verdicts (avoidable
 * requests, storms) of some client-server pairs are still being replayed, so those numbers can still rise.
 */
export function AnalysisLag() {
  const { data } = useQuery(healthQuery());
  if (data === undefined || data.analysis.lagMs < SHOWN_FROM_MS) return null;
  const { lagMs, pendingPartitions, maxLagMs } = data.analysis;
  const refusing = lagMs > maxLagMs;
  return (
    <p className={`lag-banner${refusing ? ' refusing' : ''}`} role="status" data-testid="analysis-lag">
      <strong>Analysis {formatDuration(lagMs)} behind.</strong> Avoidable requests and storms of{' '}
      {formatCount(pendingPartitions)} client–server {pendingPartitions === 1 ? 'pair are' : 'pairs are'} still being
      replayed; those numbers may still rise.
      {refusing &&
        ` Ingest is refusing new batches (503, Retry-After) until it is back within ${formatDuration(maxLagMs)}.`}
    </p>
  );
}
