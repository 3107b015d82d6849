import { rangeQuery, type TimeRange } from '../time-range.ts';

/** What most analyses are asked for: a time range, optionally narrowed to one server or client. */
export interface Scope {
  range: TimeRange;
  server?: string;
  client?: string;
}

/** The API's query members for a scope; a preset range is resolved against the clock when the query runs. */
export function scopeQuery(scope: Scope): { from: string; to: string; server?: string; client?: string } {
  return {
    ...rangeQuery(scope.range),
    ...(scope.server !== undefined && { server: scope.server }),
    ...(scope.client !== undefined && { client: scope.client }),
  };
}
