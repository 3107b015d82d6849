import { useQuery } from '@tanstack/react-query';
import { formatCount, formatDuration } from '../format.ts';
import { healthQuery } from '../queries/health.ts';

/** Below this the lag is the fold's and the replay loop's normal rhythm, not news. */
const SHOWN_FROM_MS = 5_000;

/**
 * Says when the analysis trails the stored events: events stored but not yet in the counts (the fold behind the
 * commit), and client-server pairs whose gate verdicts (avoidable requests, storms) are still being replayed. Either
 * way those numbers can still rise.
 */
export function AnalysisLag() {
  const { data } = useQuery(healthQuery());
  if (data === undefined || data.analysis.lagMs < SHOWN_FROM_MS) return null;
  const { lagMs, pendingEvents, pendingPartitions, maxLagMs } = data.analysis;
  const refusing = lagMs > maxLagMs;
  const pending = [
    pendingEvents > 0 &&
      `${formatCount(pendingEvents)} stored ${pendingEvents === 1 ? 'event is' : 'events are'} not yet counted`,
    pendingPartitions > 0 &&
      `avoidable requests and storms of ${formatCount(pendingPartitions)} client–server ${pendingPartitions === 1 ? 'pair are' : 'pairs are'} still being replayed`,
  ].filter((part): part is string => typeof part === 'string');
  return (
    <p className={`lag-banner${refusing ? ' refusing' : ''}`} role="status" data-testid="analysis-lag">
      <strong>Analysis {formatDuration(lagMs)} behind.</strong> {capitalised(pending.join('; '))}: those numbers may
      still rise.
      {refusing &&
        ` Ingest is refusing new batches (503, Retry-After) until it is back within ${formatDuration(maxLagMs)}.`}
    </p>
  );
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
