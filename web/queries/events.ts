import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import type { Bucket } from '../../shared/classify/types.ts';
import { api } from '../api.ts';
import { ApiFailure, unwrap } from '../query-client.ts';
import { resolveRange, type TimeRange } from '../time-range.ts';

export type EventView = InferResponseType<typeof api.events.$get, 200>['events'][number];

export interface EventFilters {
  range: TimeRange;
  server?: string;
  client?: string;
  bucket?: Bucket;
  kind?: string;
}

export const eventKeys = {
  all: ['events'] as const,
  list: (filters: EventFilters) => [...eventKeys.all, 'list', filters] as const,
  detail: (id: string, at: number) => [...eventKeys.all, 'detail', id, at] as const,
};

/** The first page fixes the window; later pages keep it, so "older" never shifts under the reader. */
interface PageParam {
  from: number;
  to: number;
  cursor: string | null;
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
 * One event, found by its id and time: the API has no GET /events/:id, so this asks for the millisecond it was
 * logged at and picks it out. Links to an event therefore carry both.
 */
export function eventQuery(id: string, at: number) {
  return queryOptions({
    queryKey: eventKeys.detail(id, at),
    queryFn: async () => {
      const page = await unwrap(
        await api.events.$get({ query: { from: String(at), to: String(at + 1), limit: '1000' } }),
      );
      const event = page.events.find((e) => e.id === id);
      if (event === undefined) {
        throw new ApiFailure('no event with that id at that time', 'not_found', false, 'Open it again from a list.');
      }
      return event;
    },
  });
}
