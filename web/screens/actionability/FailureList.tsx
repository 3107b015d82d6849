import { useInfiniteQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { BucketBadge } from '../../components/BucketBadge.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Link } from '../../components/Link.tsx';
import { formatDateTime } from '../../format.ts';
import type { View } from '../../prepare/actionability.ts';
import type { JoinedRecord } from '../../prepare/joined-records.ts';
import { eventAnswerLabel } from '../../prepare/timeline.ts';
import { type EventView, eventsQuery } from '../../queries/events.ts';
import { useUrl } from '../../use-url.ts';
import { requestLabel } from '../events/EventTable.tsx';
import { RecordsToggle, RequestRecords } from '../events/RequestRecords.tsx';
import { FAILURES, shownLine } from '../events/rows.ts';
import { BitEvidence } from './BitEvidence.tsx';

/**
 * A server's failures, newest first, each with its profile and the field that earned each bit. A failure is a
 * request: one its client and a proxy both logged is one row, the client's record, with both records behind it.
 */
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
  const open = (record: Pick<JoinedRecord, 'id' | 'ts'>) =>
    link('/events', { server, event: record.id, at: Date.parse(record.ts) });
  return (
    <>
      <ul className="failure-list" data-testid="failure-list">
        {events.map((event) => (
          <Failure key={event.seq} event={event} view={view} hrefOf={open} />
        ))}
      </ul>
      <p className="muted small" data-testid="failures-shown">
        {shownLine(events.length, query.data.pages[0]?.total ?? null, FAILURES)}
      </p>
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

interface FailureProps {
  event: EventView;
  view: View;
  hrefOf: (record: Pick<JoinedRecord, 'id' | 'ts'>) => string;
}

function Failure({ event, view, hrefOf }: FailureProps) {
  const [expanded, setExpanded] = useState(false);
  const recordsId = useId();
  const { partnerRecord } = event;
  return (
    <li data-testid="failure">
      <div className="failure-head">
        <Link href={hrefOf(event)} title="Open the event">
          {formatDateTime(Date.parse(event.ts))}
        </Link>{' '}
        <span className="muted">{requestLabel(event)}</span> · {eventAnswerLabel(event)}{' '}
        <BucketBadge bucket={event.bucket} kind={event.kind} />
        {partnerRecord === null ? null : (
          <RecordsToggle expanded={expanded} onToggle={() => setExpanded(!expanded)} controls={recordsId} />
        )}
      </div>
      {expanded && partnerRecord !== null ? (
        <RequestRecords id={recordsId} records={[event, partnerRecord]} hrefOf={hrefOf} />
      ) : null}
      {event.actionability === null ? null : <BitEvidence reading={event.actionability[view]} />}
    </li>
  );
}
