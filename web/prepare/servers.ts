import { BUCKETS, type Bucket, isBucket } from '../buckets.ts';
import { shareOf } from '../format.ts';
import type { ServerRow } from '../queries/servers.ts';

export const SERVER_SORTS = ['server', 'requests', ...BUCKETS, 'avoidable', 'share', 'discovery'] as const;
export type ServerSort = (typeof SERVER_SORTS)[number];
export type SortDir = 'asc' | 'desc';

export interface ServerTableState {
  q: string;
  sort: ServerSort;
  dir: SortDir;
}

/** The list's URL members; by default the servers refusing most come first. */
export function readServerTableState(params: URLSearchParams): ServerTableState {
  const sort = params.get('sort');
  const known = sort !== null && (SERVER_SORTS as readonly string[]).includes(sort);
  return {
    q: params.get('q') ?? '',
    sort: known ? (sort as ServerSort) : 'refusal',
    dir: params.get('dir') === 'asc' ? 'asc' : 'desc',
  };
}

export interface ServerTableRow extends ServerRow {
  /** Avoidable requests over all requests; null without traffic. */
  share: number | null;
}

function sortValue(row: ServerTableRow, sort: ServerSort): number | string {
  if (sort === 'server') return row.server;
  if (sort === 'discovery') return row.hasDiscovery ? 1 : 0;
  if (sort === 'share') return row.share ?? -1;
  if (isBucket(sort)) return row.buckets[sort];
  return row[sort];
}

/** Filtered by a case-insensitive substring of the name, sorted, ties broken by name so the order is stable. */
export function serverTable(rows: readonly ServerRow[], state: ServerTableState): ServerTableRow[] {
  const needle = state.q.trim().toLowerCase();
  const sign = state.dir === 'asc' ? 1 : -1;
  return rows
    .filter((row) => needle === '' || row.server.toLowerCase().includes(needle))
    .map((row) => ({ ...row, share: shareOf(row.avoidable, row.requests) }))
    .sort((a, b) => {
      const [x, y] = [sortValue(a, state.sort), sortValue(b, state.sort)];
      const order = x < y ? -1 : x > y ? 1 : 0;
      return sign * order || a.server.localeCompare(b.server);
    });
}

export interface Ranked {
  server: string;
  value: number;
  /** The value over the server's requests. */
  share: number | null;
}

/** The `n` servers with the most refusals (or avoidable requests); servers with none are left out. */
export function topServers(rows: readonly ServerRow[], by: Extract<Bucket, 'refusal'> | 'avoidable', n: number) {
  return rows
    .map((row): Ranked => {
      const value = by === 'avoidable' ? row.avoidable : row.buckets[by];
      return { server: row.server, value, share: shareOf(value, row.requests) };
    })
    .filter((row) => row.value > 0)
    .sort((a, b) => b.value - a.value || a.server.localeCompare(b.server))
    .slice(0, n);
}
