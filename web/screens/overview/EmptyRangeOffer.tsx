import { useQuery } from '@tanstack/react-query';
import { Link } from '../../components/Link.tsx';
import { SpanLink } from '../../components/SpanLink.tsx';
import { storedText } from '../../prepare/span.ts';
import type { Scope } from '../../queries/scope.ts';
import { storedSpanQuery } from '../../queries/span.ts';
import { summaryQuery } from '../../queries/summary.ts';
import { rangeText } from '../../time-range.ts';
import { useUrl } from '../../use-url.ts';

/**
 * A range with no request in it, on a store that has some elsewhere (a log of last week, opened on the last 24
 * hours): says where they are and goes there in one click, instead of zeros everywhere. On an empty store, says how
 * to put something in it.
 */
export function EmptyRangeOffer({ scope }: { scope: Scope }) {
  const { link } = useUrl();
  const summary = useQuery(summaryQuery(scope));
  const empty = summary.data?.overall.total === 0;
  const span = useQuery({ ...storedSpanQuery(), enabled: empty });
  if (!empty || span.data === undefined) return null;
  const none = `No requests in ${rangeText(scope.range)}.`;
  if (span.data === null) {
    return (
      <p className="offer" role="note" data-testid="empty-range-offer">
        <strong>Nothing is stored yet.</strong> <Link href={link('/ingest')}>Upload a log</Link> on the Ingest screen,
        or ship logs from the command line.
      </p>
    );
  }
  return (
    <p className="offer" role="note" data-testid="empty-range-offer">
      <strong>{none}</strong> {storedText(span.data, Date.now())} <SpanLink span={span.data} testId="show-stored" />
    </p>
  );
}
