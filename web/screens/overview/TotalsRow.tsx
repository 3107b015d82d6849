import { useQuery } from '@tanstack/react-query';
import { BucketTotals } from '../../components/BucketTotals.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import type { Scope } from '../../queries/scope.ts';
import { summaryQuery } from '../../queries/summary.ts';

/** Totals per bucket and avoidable requests, as /summary counts them. */
export function TotalsRow({ scope }: { scope: Scope }) {
  const summary = useQuery(summaryQuery(scope));
  if (summary.isError && summary.data === undefined) {
    return <ErrorNote error={summary.error} what="the totals" onRetry={() => summary.refetch()} />;
  }
  return (
    <section aria-label="Totals" data-testid="totals">
      <BucketTotals counts={summary.data?.overall} />
    </section>
  );
}
