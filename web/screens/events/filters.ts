import { type Bucket, isBucket } from '../../buckets.ts';
import type { EventFilters } from '../../queries/events.ts';
import { parseInstant, type TimeRange } from '../../time-range.ts';

export interface EventSelection {
  id: string;
  at: number;
  /**
   * The server the list is narrowed to, which every event it lists is of: with `at`, where an event older than the
   * hot window is packed (GET /events/:id's hints).
   */
  server?: string;
}

/** The events screen's URL members: the filters the API takes, and the open event (its id and time). */
export function readEventFilters(params: URLSearchParams, range: TimeRange): EventFilters {
  const text = (key: string) => {
    const value = params.get(key)?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const bucket = params.get('bucket');
  return {
    range,
    ...(text('server') !== undefined && { server: text('server') }),
    ...(text('client') !== undefined && { client: text('client') }),
    ...(isBucket(bucket) && { bucket: bucket as Bucket }),
    ...(text('kind') !== undefined && { kind: text('kind') }),
    ...(params.get('records') === 'all' && { records: 'all' as const }),
  };
}

export function readSelection(params: URLSearchParams): EventSelection | null {
  const id = params.get('event');
  const at = parseInstant(params.get('at'));
  const server = params.get('server')?.trim();
  if (id === null || id === '' || at === null) return null;
  return server === undefined || server === '' ? { id, at } : { id, at, server };
}
