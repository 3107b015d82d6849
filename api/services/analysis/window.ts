import { storedEventSpan } from '../../../db/queries/event-span.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { DAY_MS } from '../../../shared/analysis/time-buckets.ts';
import { keptData } from '../retention.ts';
import { ServiceError } from '../service-error.ts';

/** The longest window an analysis reads: as far back as counts are kept, and about 400 points of a daily chart. */
export const MAX_WINDOW_MS = 400 * DAY_MS;

export interface WindowQuery {
  from?: number;
  to?: number;
  server?: string;
  client?: string;
}

/**
 * The window an analysis reads: the 24 hours before now unless told otherwise. A window longer than MAX_WINDOW_MS
 * is first narrowed to the days that hold events (`from=0` means "everything"); one that is still longer is refused
 * with how to narrow it. Every read's cost is bounded by it: a series never has more than a few hundred points, and
 * no read walks hours that hold nothing. It carries where the raw events kept begin.
 */
export async function analysisWindow(db: SqlRunner, query: WindowQuery, now: number) {
  let to = query.to ?? now;
  let from = query.from ?? to - DAY_MS;
  if (from >= to) {
    throw new ServiceError('invalid_request', '"from" must be before "to"', {
      field: 'from',
      fix: 'Swap or widen the range.',
    });
  }
  if (to - from > MAX_WINDOW_MS) {
    const extent = await storedEventSpan(db);
    const first = extent === null ? to - DAY_MS : extent.first - (extent.first % DAY_MS);
    const last = extent === null ? to : extent.last - (extent.last % DAY_MS) + DAY_MS;
    from = Math.max(from, first);
    to = Math.min(to, Math.max(last, from + 1));
    if (to - from > MAX_WINDOW_MS) {
      throw new ServiceError('invalid_request', 'the range is longer than 400 days of stored events', {
        field: 'from',
        fix: `Narrow "from" and "to" to at most 400 days; the store holds events from ${iso(first)} to ${iso(last)}.`,
      });
    }
  }
  // Reads take a range's part before retention's horizon from the hour counts (db/counters/family.ts segments).
  const { eventsFrom, rowsFrom } = await keptData(db);
  return { from, to, server: query.server, client: query.client, eventsFrom, rowsFrom };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
