import { useInfiniteQuery } from '@tanstack/react-query';
import type { JoinedRecord } from '../../prepare/joined-records.ts';
import { eventsDownload, eventsQuery } from '../../queries/events.ts';
import { applyPatch, hrefOf } from '../../url-state.ts';
import { useUrl } from '../../use-url.ts';
import { EventDetail } from './EventDetail.tsx';
import { EventFiltersBar } from './EventFiltersBar.tsx';
import { EventTable } from './EventTable.tsx';
import { readEventFilters, readSelection } from './filters.ts';

/** Below the side-by-side width the detail sits above the list: bring it into view when a row is opened. */
function revealDetail(): void {
  if (!window.matchMedia('(max-width: 1099px)').matches) return;
  window.requestAnimationFrame(() => document.getElementById('event-detail')?.scrollIntoView({ block: 'start' }));
}

/**
 * Every stored request, newest first, filtered (or every record, both of a request its client and a proxy logged);
 * the open one shows its frames and why it landed in its bucket.
 */
export function EventsScreen() {
  const { range, params, pathname, setParams } = useUrl();
  const filters = readEventFilters(params, range);
  const selection = readSelection(params);
  const events = useInfiniteQuery(eventsQuery(filters));
  const open = (record: JoinedRecord) =>
    hrefOf(pathname, applyPatch(params, { event: record.id, at: Date.parse(record.ts) }));
  return (
    <>
      <h1 className="screen-title">Events</h1>
      <EventFiltersBar filters={filters} onChange={(patch) => setParams({ ...patch, event: null, at: null })} />
      <div className={`split ${selection ? 'with-detail' : ''}`}>
        {selection ? (
          // Keyed by the event: opening the other record of a request starts its detail at the top.
          <EventDetail
            key={selection.id}
            selection={selection}
            onClose={() => setParams({ event: null, at: null })}
            onFollow={revealDetail}
          />
        ) : null}
        <EventTable
          query={events}
          rows={filters.records === 'all' ? 'records' : 'requests'}
          // The open record stays open: it is in either list, as a row or behind one.
          onRows={(rows) => setParams({ records: rows === 'records' ? 'all' : null })}
          selected={selection?.id ?? null}
          hrefOf={open}
          onFollow={revealDetail}
          download={eventsDownload(filters)}
          onOpen={(event) => {
            setParams({ event: event.id, at: Date.parse(event.ts) });
            revealDetail();
          }}
        />
      </div>
    </>
  );
}
