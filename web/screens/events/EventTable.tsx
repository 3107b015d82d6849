import type { InfiniteData, UseInfiniteQueryResult } from '@tanstack/react-query';
import { BucketBadge } from '../../components/BucketBadge.tsx';
import { DownloadButtons } from '../../components/DownloadButtons.tsx';
import { Panel } from '../../components/Panel.tsx';
import type { TableDownload } from '../../download.ts';
import { formatCount, formatDay, formatTimeMs } from '../../format.ts';
import { notCountedHint } from '../../prepare/joined-records.ts';
import { answerLabel } from '../../prepare/timeline.ts';
import type { EventView } from '../../queries/events.ts';

type Page = { events: EventView[]; nextCursor: string | null };

interface EventTableProps {
  query: UseInfiniteQueryResult<InfiniteData<Page>>;
  selected: string | null;
  onOpen: (event: EventView) => void;
  /** Every event of these filters, not the pages loaded. */
  download: TableDownload;
}

export function requestLabel(event: Pick<EventView, 'method' | 'http'>): string {
  const http = event.http.path === null ? null : `${event.http.method ?? ''} ${event.http.path}`.trim();
  if (http !== null && event.method !== null) return `${http} · ${event.method}`;
  return http ?? event.method ?? '–';
}

function EventRow({ event, selected, onOpen }: { event: EventView; selected: boolean; onOpen: () => void }) {
  const ts = Date.parse(event.ts);
  const hint = notCountedHint(event);
  return (
    <li>
      <button
        type="button"
        className={hint === null ? 'event-row' : 'event-row not-counted'}
        aria-pressed={selected}
        onClick={onOpen}
      >
        <span className="ev-time">
          <span className="muted">{formatDay(ts)}</span> {formatTimeMs(ts)}
        </span>
        <span className="ev-who">
          {event.client ?? 'no client'} → {event.server}
        </span>
        <span className="ev-request">{requestLabel(event)}</span>
        <span className="ev-answer">{answerLabel({ status: event.http.status, rpcCode: event.rpcCode })}</span>
        <span className="ev-bucket">
          <BucketBadge bucket={event.bucket} kind={event.kind} />
          {event.avoidable ? <span className="mark-avoidable"> avoidable</span> : null}
          {hint === null ? null : <span className="ev-note">{hint}</span>}
        </span>
      </button>
    </li>
  );
}

/** Newest first, a page at a time; "Load older" follows the API's cursor. Rows stack into cards on a phone. */
export function EventTable({ query, selected, onOpen, download }: EventTableProps) {
  return (
    <Panel
      title="Events, newest first (times UTC)"
      what="the events"
      query={query}
      minHeight={420}
      isEmpty={(data) => data.pages.every((page) => page.events.length === 0)}
      empty="No event matches these filters in this range."
      testId="event-table"
      actions={<DownloadButtons table={download} />}
      className="event-list"
    >
      {(data) => {
        const events = data.pages.flatMap((page) => page.events);
        return (
          <>
            <ol className="event-rows">
              {events.map((event) => (
                <EventRow key={event.seq} event={event} selected={event.id === selected} onOpen={() => onOpen(event)} />
              ))}
            </ol>
            <div className="panel-foot actions">
              <span className="muted">{formatCount(events.length)} shown</span>
              {query.hasNextPage ? (
                <button type="button" onClick={() => query.fetchNextPage()} disabled={query.isFetchingNextPage}>
                  {query.isFetchingNextPage ? 'Loading…' : 'Load older'}
                </button>
              ) : (
                <span className="muted">No older events in this range.</span>
              )}
            </div>
          </>
        );
      }}
    </Panel>
  );
}
