import { useQuery } from '@tanstack/react-query';
import { BucketTotals } from '../../components/BucketTotals.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { avoidableTotal } from '../../prepare/servers.ts';
import type { Scope } from '../../queries/scope.ts';
import { serversQuery } from '../../queries/servers.ts';
import { summaryQuery } from '../../queries/summary.ts';

/** Totals per bucket (from /summary) and avoidable requests (the gate's verdicts, summed over servers). */
export function TotalsRow({ scope }: { scope: Scope }) {
  const summary = useQuery(summaryQuery(scope));
  const servers = useQuery(serversQuery(scope));
  if (summary.isError && summary.data === undefined) {
    return <ErrorNote error={summary.error} what="the totals" onRetry={() => summary.refetch()} />;
  }
  const avoidable = servers.data ? avoidableTotal(servers.data.servers).avoidable : undefined;
  return (
    <section aria-label="Totals" data-testid="totals">
      <BucketTotals counts={summary.data?.overall} avoidable={avoidable} />
      {servers.isError ? <p className="muted">Avoidable requests could not be loaded.</p> : null}
    </section>
  );
}
