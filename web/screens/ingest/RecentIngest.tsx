import { useQuery } from '@tanstack/react-query';
import { BucketTotals } from '../../components/BucketTotals.tsx';
import { Panel } from '../../components/Panel.tsx';
import type { Scope } from '../../queries/scope.ts';
import { summaryQuery } from '../../queries/summary.ts';

const LAST_HOUR: Scope = { range: { preset: '1h' } };

/** What arrived in the last hour, per bucket; it moves with the page's auto-refresh like every panel. */
export function RecentIngest() {
  const summary = useQuery(summaryQuery(LAST_HOUR));
  return (
    <Panel
      title="Recent ingest: the last hour"
      what="the totals of the last hour"
      query={summary}
      minHeight={96}
      isEmpty={(data) => data.overall.total === 0}
      empty="No request in the last hour. Upload a file above, or ship logs from the command line."
      testId="recent-ingest"
    >
      {(data) => <BucketTotals counts={data.overall} />}
    </Panel>
  );
}
