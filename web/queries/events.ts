import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import type { Bucket } from '../../shared/classify/types.ts';
import { api } from '../api.ts';
import type { TableDownload } from '../download.ts';
import { unwrap } from '../query-client.ts';
import { rangeQuery, resolveRange, type TimeRange } from '../time-range.ts';

type EventPage = InferResponseType<typeof api.events.$get, 200>;
/** A row of the events list: a request (the record it is counted by, its other record behind it), or a record. */
export type EventView = EventPage['events'][number];
/** How many rows the whole list holds: on the first page only. */
export type ListTotal = NonNullable<EventPage['total']>;

export interface EventFilters {
  range: TimeRange;
  server?: string;
  client?: string;
  bucket?: Bucket;
  kind?: string;
  /** Failures only (the actionability screen's list of a server's failures). */
  failed?: 'true';
  /** Hidden failures only: successes whose text says the call failed (`throttle`: that the caller is rate limited). */
  hidden?: 'failure' | 'throttle';
  /** Every stored record, both of a request its client and a proxy logged; absent: a row per request. */
  records?: 'all';
}

export const eventKeys = {
  all: ['events'] as const,
  list: (filters: EventFilters) => [...eventKeys.all, 'list', filters] as const,
  detail: (id: string) => [...eventKeys.all, 'detail', id] as const,
};

/** The first page fixes the window; later pages keep it, so "older" never shifts under the reader. */
interface PageParam {
  from: number;
  to: number;
  cursor: string | null;
}

/** What the events of these filters download as: all of them, in the range resolved now. */
export function eventsDownload({ range, ...narrow }: EventFilters): TableDownload {
  return { path: 'events', query: { ...rangeQuery(range), ...narrow } };
}

export function eventsQuery(filters: EventFilters, pageSize = 50) {
  const { range, ...narrow } = filters;
  return infiniteQueryOptions({
    queryKey: eventKeys.list(filters),
    initialPageParam: null as PageParam | null,
    queryFn: async ({ pageParam }) => {
      const window = pageParam ?? { ...resolveRange(range, Date.now()), cursor: null };
      const page = await unwrap(
        await api.events.$get({
          query: {
            ...narrow,
            from: String(window.from),
            to: String(window.to),
            limit: String(pageSize),
            ...(window.cursor !== null && { cursor: window.cursor }),
          },
        }),
      );
      return { ...page, window };
    },
    getNextPageParam: (last): PageParam | null =>
      last.nextCursor === null ? null : { from: last.window.from, to: last.window.to, cursor: last.nextCursor },
  });
}

/**
 * One event by its id (GET /events/:id): the open one, and the other record of its request. One key for both, so
 * jumping from a record to its partner shows what is already loaded. `at` is its time, or near it, and `server`
 * its server where known: an event older than the hot window is packed with its server's hour, and these take the
 * look-up there (the id alone searches only the newest packed events; a wrong hint costs a wider search).
 */
export function eventQuery(id: string, at: number, server?: string) {
  return queryOptions({
    queryKey: eventKeys.detail(id),
    // Ids come from logs: a `/`, `?` or `#` in one must stay inside the path segment.
    queryFn: async () =>
      unwrap(
        await api.events[':id'].$get({
          param: { id: encodeURIComponent(id) },
          query: { ts: String(at), ...(server !== undefined && { server }) },
        }),
      ),
  });
}
