import { useQuery } from '@tanstack/react-query';
import { BUCKETS } from '../../shared/classify/types.ts';
import { summaryQuery } from '../queries/summary.ts';
import { ApiFailure } from '../query-client.ts';

const LABELS: Record<(typeof BUCKETS)[number], string> = {
  ok: 'OK',
  refusal: 'Refusals',
  transient: 'Transient',
  throttled: 'Throttled',
  ambiguous: 'Ambiguous',
};

/** Requests per bucket over all stored traffic: the first answer on the overview. */
export function BucketTotals() {
  const summary = useQuery(summaryQuery({}));
  if (summary.isError) {
    const retry = summary.error instanceof ApiFailure && !summary.error.retryable ? 'Retrying will not help.' : '';
    return (
      <p role="alert" className="panel error">
        Could not load the summary: {summary.error.message}. {retry}
      </p>
    );
  }
  const counts = summary.data?.overall;
  if (counts && counts.total === 0) {
    return (
      <p className="panel empty">
        No traffic yet. Ship a log with <code>npm run lens -- ingest FILE --url URL</code>.
      </p>
    );
  }
  return (
    <ul className="totals" aria-busy={summary.isPending}>
      {BUCKETS.map((bucket) => (
        <li key={bucket} className={`total bucket-${bucket}`}>
          <span className="label">{LABELS[bucket]}</span>
          <span className="value" data-testid={`total-${bucket}`}>
            {counts ? counts.buckets[bucket].toLocaleString() : '–'}
          </span>
        </li>
      ))}
    </ul>
  );
}
