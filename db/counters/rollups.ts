import { type SQL, sql } from 'drizzle-orm';
import type { CountLike } from '../../shared/alerts/values.ts';
import type { SqlRunner } from '../runner.ts';
import {
  AVOIDABLE_COUNTS,
  CLIENT_COUNTS,
  CONDUCT_COLUMNS,
  type Filed,
  FLEET_COUNTS,
  PAIR_COUNTS,
  SERVER_COUNTS,
} from './families.ts';
import { type CounterFamily, rangeUnion, sumRange, type Window } from './family.ts';

export { CONDUCT_COLUMNS };

/** The conduct counters that count avoidable requests, one per gate reason. */
const REASON_COLUMNS = CONDUCT_COLUMNS.filter((column) => column !== 'undiscovered');

/**
 * The first and the last hour holding counted requests, of all servers or of one, or null when none does: nothing
 * was sent outside them. Each end is read off an index, one per subquery (SQLite reads a min or a max off an index
 * only when it is the query's one aggregate).
 */
export async function countedHours(db: SqlRunner, server?: string): Promise<{ first: number; last: number } | null> {
  const [table, where] =
    server === undefined ? [sql`rollup_server_hour`, sql``] : [sql`rollup_hour`, sql` WHERE server = ${server}`];
  const [row] = await db.all<{ first: number | null; last: number | null }>(
    sql`SELECT (SELECT min(start) FROM ${table}${where}) AS first, (SELECT max(start) FROM ${table}${where}) AS last`,
  );
  if (row === undefined || row.first === null || row.last === null) return null;
  return { first: row.first, last: row.last };
}

/** A range of the request counts, narrowed to a server or a client (the sender, '' for the server's own). */
export interface RangeFilter extends Window {
  server?: string;
  client?: string;
}

/** A count row: what the alert metrics read of it (shared/alerts/values.ts CountLike) and where its bucket starts. */
export interface CountRow extends CountLike {
  /** Start of the time bucket when grouped by a step; 0 otherwise. */
  start: number;
}

/** What a count row keeps apart besides its time bucket and classification bucket. */
export type Dimension = 'server' | 'client' | 'kind';

/**
 * Counted and avoidable requests over [from, to), exactly (db/counters/family.ts rangeUnion). With a step (a multiple
 * of a minute), rows are grouped by time bucket. Rows keep the dimensions in `keep` ('' where folded), read from the
 * family that keeps the fewest others (familyFor).
 */
export async function countRows(
  db: SqlRunner,
  filter: RangeFilter,
  stepMs: number | null,
  keep: readonly Dimension[] = ['server', 'kind'],
): Promise<CountRow[]> {
  const rows = await sumRange<Partial<CountRow> & Pick<CountRow, 'start' | 'bucket' | 'requests' | 'avoidable'>>(
    db,
    familyFor(filter, keep),
    {
      window: filter,
      step: stepMs,
      where: scopeConditions(filter),
      keep: [...keep, 'bucket'],
      counts: ['requests', 'avoidable'],
    },
  );
  return rows.map((row) => ({ server: '', client: '', kind: '', ...row }));
}

export interface ConductRow {
  client: string;
  server: string;
  requests: number;
  avoidable: number;
  after_refusal: number;
  past_transient_budget: number;
  before_retry_after: number;
  identical_after_ambiguous: number;
  /** Refused as not declared while the client had not read the discovery document. */
  probed: number;
}

/**
 * Client conduct counts over [from, to), exactly, from the request counts: what GET /clients shows, without reading
 * the window's events. Per client (server ''), or per server (client '') when `byServer`; a read narrowed to a server
 * and a client, or a server's clients, takes the family with both. Per server, `requests` counts every request it
 * answered, named client or not; conduct only ever counts named clients' requests.
 */
export async function conductRows(db: SqlRunner, filter: RangeFilter, byServer: boolean): Promise<ConductRow[]> {
  const clients = !byServer || filter.client !== undefined;
  const servers = byServer || filter.server !== undefined;
  const family = !clients ? SERVER_COUNTS : servers ? PAIR_COUNTS : CLIENT_COUNTS;
  const scope = scopeConditions(filter);
  const union = rangeUnion(family, {
    window: filter,
    step: null,
    where: (key) => [...scope(key), ...(clients ? [sql`${key('client')} <> ''`] : [])],
  });
  if (union === null) return [];
  const client = clients ? sql`client` : sql`''`;
  const server = byServer ? sql`server` : sql`''`;
  const probed = sql`sum(CASE WHEN bucket = 'refusal' AND kind = 'not_declared' THEN undiscovered ELSE 0 END)`;
  const sums = sql.raw(['requests', 'avoidable', ...REASON_COLUMNS].map((c) => `sum(${c}) AS ${c}`).join(', '));
  return db.all<ConductRow>(sql`SELECT ${client} AS client, ${server} AS server, ${sums}, ${probed} AS probed
    FROM (${union}) AS parts GROUP BY 1, 2 HAVING sum(requests) <> 0`);
}

export interface AvoidablePairRow {
  client: string;
  server: string;
  avoidable: number;
}

/** Avoidable requests per (client, server) over [from, to), exactly: which servers each client hurts most. */
export async function avoidablePairRows(db: SqlRunner, filter: RangeFilter): Promise<AvoidablePairRow[]> {
  const scope = scopeConditions(filter);
  return sumRange<AvoidablePairRow>(db, AVOIDABLE_COUNTS, {
    window: filter,
    step: null,
    where: (key) => [...scope(key), sql`${key('client')} <> ''`],
    keep: ['client', 'server'],
  });
}

/** The family with the fewest rows that still keeps, or can filter on, every dimension a read needs. */
function familyFor(filter: RangeFilter, keep: readonly Dimension[]): CounterFamily<Filed> {
  const server = keep.includes('server') || filter.server !== undefined;
  const client = keep.includes('client') || filter.client !== undefined;
  if (!client) return server ? SERVER_COUNTS : FLEET_COUNTS;
  return server ? PAIR_COUNTS : CLIENT_COUNTS;
}

/** The server and client a range is narrowed to, as conditions on the family's keys. */
export function scopeConditions(filter: { server?: string; client?: string }): (key: (column: string) => SQL) => SQL[] {
  return (key) => [
    ...(filter.server === undefined ? [] : [sql`${key('server')} = ${filter.server}`]),
    ...(filter.client === undefined ? [] : [sql`${key('client')} = ${filter.client}`]),
  ];
}
