import { useInfiniteQuery } from '@tanstack/react-query';
import { BucketBadge } from '../../components/BucketBadge.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Link } from '../../components/Link.tsx';
import { formatDateTime } from '../../format.ts';
import type { View } from '../../prepare/actionability.ts';
import { answerLabel } from '../../prepare/timeline.ts';
import { type EventView, eventsQuery } from '../../queries/events.ts';
import { useUrl } from '../../use-url.ts';
import { requestLabel } from '../events/EventTable.tsx';
import { BitEvidence } from './BitEvidence.tsx';

/** A server's failures, newest first, each with its profile and the field that earned each bit. */
export function FailureList({ server, view }: { server: string; view: View }) {
  const { range, link } = useUrl();
  const query = useInfiniteQuery(eventsQuery({ range, server, failed: 'true' }, 25));
  if (query.data === undefined) {
    return query.isError ? (
      <ErrorNote error={query.error} what="the failures" onRetry={() => query.refetch()} />
    ) : (
      <div className="skeleton" style={{ height: 200 }} />
    );
  }
  const events = query.data.pages.flatMap((page) => page.events);
  if (events.length === 0) return <p className="empty">No failure of this server in this range.</p>;
  const open = (event: EventView) => link('/events', { server, event: event.id, at: Date.parse(event.ts) });
  return (
    <>
      <ul className="failure-list" data-testid="failure-list">
        {events.map((event) => (
          <li key={event.id} data-testid="failure">
            <div className="failure-head">
              <Link href={open(event)} title="Open the event">
                {formatDateTime(Date.parse(event.ts))}
              </Link>{' '}
              <span className="muted">{requestLabel(event)}</span> ·{' '}
              {answerLabel({ status: event.http.status, rpcCode: event.rpcCode })}{' '}
              <BucketBadge bucket={event.bucket} kind={event.kind} />
            </div>
            {event.actionability === null ? null : <BitEvidence reading={event.actionability[view]} />}
          </li>
        ))}
      </ul>
      {query.hasNextPage ? (
        <button
          type="button"
          className="quiet"
          onClick={() => query.fetchNextPage()}
          disabled={query.isFetchingNextPage}
        >
          Older failures
        </button>
      ) : null}
    </>
  );
}
