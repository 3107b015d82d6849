import type { InfiniteData, UseInfiniteQueryResult } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { BucketBadge } from '../../components/BucketBadge.tsx';
import { DownloadButtons } from '../../components/DownloadButtons.tsx';
import { Panel } from '../../components/Panel.tsx';
import type { TableDownload } from '../../download.ts';
import { formatDay, formatTimeMs } from '../../format.ts';
import { type JoinedRecord, notCountedHint } from '../../prepare/joined-records.ts';
import { eventAnswerLabel } from '../../prepare/timeline.ts';
import type { EventView, ListTotal } from '../../queries/events.ts';
import { RecordsToggle, RequestRecords } from './RequestRecords.tsx';
import { holdsRecord, RECORDS, REQUESTS, shownLine } from './rows.ts';
import './events.css';

type Page = { events: EventView[]; nextCursor: string | null; total: ListTotal | null };

interface EventTableProps {
  query: UseInfiniteQueryResult<InfiniteData<Page>>;
  /** `requests`: a row per request, its other record behind it; `records`: every stored record. */
  rows: 'requests' | 'records';
  onRows: (rows: 'requests' | 'records') => void;
  selected: string | null;
  onOpen: (event: EventView) => void;
  /** The address that opens a record on this screen, filters kept. */
  hrefOf: (record: JoinedRecord) => string;
  onFollow: () => void;
  /** Every event of these filters, not the pages loaded. */
  download: TableDownload;
}

export function requestLabel(event: Pick<EventView, 'method' | 'http'>): string {
  const http = event.http.path === null ? null : `${event.http.method ?? ''} ${event.http.path}`.trim();
  if (http !== null && event.method !== null) return `${http} · ${event.method}`;
  return http ?? event.method ?? '–';
}

interface EventRowProps {
  event: EventView;
  selected: boolean;
  onOpen: () => void;
  /** A request's row: it can show the records behind it. */
  asRequest: boolean;
  hrefOf: (record: JoinedRecord) => string;
  onFollow: () => void;
}

function EventRow({ event, selected, onOpen, asRequest, hrefOf, onFollow }: EventRowProps) {
  const [expanded, setExpanded] = useState(false);
  const recordsId = useId();
  const ts = Date.parse(event.ts);
  const hint = notCountedHint(event);
  const { partnerRecord } = event;
  return (
    <li className={asRequest ? 'request-item' : undefined}>
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
        <span className="ev-answer">{eventAnswerLabel(event)}</span>
        <span className="ev-bucket">
          <BucketBadge bucket={event.bucket} kind={event.kind} />
          {event.avoidable ? <span className="mark-avoidable"> avoidable</span> : null}
          {hint === null ? null : <span className="ev-note">{hint}</span>}
        </span>
      </button>
      {asRequest && partnerRecord !== null ? (
        <RecordsToggle expanded={expanded} onToggle={() => setExpanded(!expanded)} controls={recordsId} />
      ) : null}
      {expanded && partnerRecord !== null ? (
        <RequestRecords id={recordsId} records={[event, partnerRecord]} hrefOf={hrefOf} onFollow={onFollow} />
      ) : null}
    </li>
  );
}

function RowsToggle({ rows, onRows }: Pick<EventTableProps, 'rows' | 'onRows'>) {
  return (
    <label
      className="rows-toggle"
      title="A request its client and a proxy both logged is stored as two records; this lists both, the proxy's marked not counted"
    >
      <input
        type="checkbox"
        checked={rows === 'records'}
        onChange={(event) => onRows(event.target.checked ? 'records' : 'requests')}
      />{' '}
      Every record
    </label>
  );
}

/**
 * Newest first, a page at a time; "Load older" follows the API's cursor. A row is a request, its other record behind
 * it, or with the toggle a record. Rows stack into cards on a phone.
 */
export function EventTable(props: EventTableProps) {
  const { query, rows, onRows, selected, onOpen, hrefOf, onFollow, download } = props;
  const noun = rows === 'requests' ? REQUESTS : RECORDS;
  return (
    <Panel
      title={rows === 'requests' ? 'Requests, newest first (times UTC)' : 'Records, newest first (times UTC)'}
      what={`the ${noun[1]}`}
      query={query}
      minHeight={420}
      isEmpty={(data) => data.pages.every((page) => page.events.length === 0)}
      empty={`No ${noun[0]} matches these filters in this range.`}
      testId="event-table"
      actions={
        <>
          <RowsToggle rows={rows} onRows={onRows} />
          <DownloadButtons table={download} />
        </>
      }
      className="event-list"
    >
      {(data) => {
        const events = data.pages.flatMap((page) => page.events);
        return (
          <>
            {rows === 'records' ? (
              <p className="muted small rows-note" data-testid="rows-note">
                Every stored record: a request its client and a proxy both logged is two rows here, and only one of them
                is counted.
              </p>
            ) : null}
            <ol className="event-rows">
              {events.map((event) => (
                <EventRow
                  key={event.seq}
                  event={event}
                  selected={holdsRecord(event, selected)}
                  onOpen={() => onOpen(event)}
                  asRequest={rows === 'requests'}
                  hrefOf={hrefOf}
                  onFollow={onFollow}
                />
              ))}
            </ol>
            <div className="panel-foot actions">
              <span className="muted" data-testid="rows-shown">
                {shownLine(events.length, data.pages[0]?.total ?? null, noun)}
              </span>
              {query.hasNextPage ? (
                <button type="button" onClick={() => query.fetchNextPage()} disabled={query.isFetchingNextPage}>
                  {query.isFetchingNextPage ? 'Loading…' : 'Load older'}
                </button>
              ) : (
                <span className="muted">No older {noun[1]} in this range.</span>
              )}
            </div>
          </>
        );
      }}
    </Panel>
  );
}
