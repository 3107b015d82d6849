import { type SQL, sql } from 'drizzle-orm';
import type { CountLike } from '../../shared/alerts/values.ts';
import { HOUR_MS, MINUTE_MS } from '../../shared/analysis/time-buckets.ts';
import { SERVER_TO_CLIENT_METHODS } from '../../shared/frames.ts';
import { addingUpsert, type RowsColumn, upsertRows } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import { COUNTER_FAMILIES, type Level } from './levels.ts';

export { HOUR_MS, MINUTE_MS };

const MAX_TS = 8.64e15 + 1;

/**
 * The client a raw event's counts are filed under, as the rollups file them (db/counters/changes.ts): its sender's.
 * A request the server sent to the client counts under (server, no client).
 */
export const SENDER = sql`CASE WHEN rpc_method IN (${sql.join(
  [...SERVER_TO_CLIENT_METHODS].map((method) => sql`${method}`),
  sql`, `,
)}) THEN NULL ELSE client END`;

/**
 * The conduct counters of the families with clients: avoidable requests by gate reason, and requests without
 * discovery read.
 */
export const CONDUCT_COLUMNS = [
  'after_refusal',
  'past_transient_budget',
  'before_retry_after',
  'identical_after_ambiguous',
  'undiscovered',
] as const;
/** The conduct counters that count avoidable requests, one per gate reason. */
const REASON_COLUMNS = CONDUCT_COLUMNS.filter((column) => column !== 'undiscovered');

/** A change to the counts of one minute, server, client, bucket and kind. */
export interface RollupDelta {
  minute: number;
  server: string;
  client: string | null;
  bucket: string;
  kind: string;
  requests: number;
  avoidable: number;
  /** Changes to the conduct counters, in CONDUCT_COLUMNS order. */
  conduct: readonly number[];
}

// No minute level in the pair family: edges finer than 5 minutes of a read that needs both dimensions come from the
// events, and such a read is narrowed to a server or a client (or is a server's conduct, which the server family keeps).
const PAIR_LEVELS = COUNTER_FAMILIES.pair;
const SERVER_LEVELS = COUNTER_FAMILIES.server;
const CLIENT_LEVELS = COUNTER_FAMILIES.client;
const AVOIDABLE_LEVELS = COUNTER_FAMILIES.avoidable;
const FLEET_LEVELS = COUNTER_FAMILIES.fleet;

/** What a rollup row is keyed by besides its time bucket. */
type RowDimension = 'server' | 'client' | 'bucket' | 'kind';

/** A family of rollups: its levels, the dimensions its rows keep, and the counts they hold. */
interface Family {
  levels: readonly Level[];
  dims: readonly RowDimension[];
  counts: readonly string[];
}

const COUNT_COLUMNS: readonly string[] = ['requests', 'avoidable'];
/** The counts of a Row, in order. */
const ROW_COUNTS: readonly string[] = [...COUNT_COLUMNS, ...CONDUCT_COLUMNS];
const PAIR_FAMILY: Family = { levels: PAIR_LEVELS, dims: ['server', 'client', 'bucket', 'kind'], counts: ROW_COUNTS };
const SERVER_FAMILY: Family = { levels: SERVER_LEVELS, dims: ['server', 'bucket', 'kind'], counts: ROW_COUNTS };
const CLIENT_FAMILY: Family = { levels: CLIENT_LEVELS, dims: ['client', 'bucket', 'kind'], counts: ROW_COUNTS };
const AVOIDABLE_FAMILY: Family = { levels: AVOIDABLE_LEVELS, dims: ['server', 'client'], counts: ['avoidable'] };
const FLEET_FAMILY: Family = { levels: FLEET_LEVELS, dims: ['bucket', 'kind'], counts: COUNT_COLUMNS };
const FAMILIES = [PAIR_FAMILY, SERVER_FAMILY, CLIENT_FAMILY, AVOIDABLE_FAMILY, FLEET_FAMILY];

/**
 * Adds deltas to every level of every family. Deltas are summed per minute first (a batch's thousands collapse to
 * far fewer rows), and each level folds the level below it: an upsert may touch a row once.
 */
export async function applyRollupDeltas(db: SqlRunner, deltas: readonly RollupDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const minutes = foldRows(
    deltas.map(
      (d): Row => [d.minute, d.server, d.client ?? '', d.bucket, d.kind, d.requests, d.avoidable, ...d.conduct],
    ),
    MINUTE_MS,
    PAIR_FAMILY,
  );
  const upserts: Promise<void>[] = [];
  for (const family of FAMILIES) {
    const counts = family.counts.map((column) => KEY_LENGTH + ROW_COUNTS.indexOf(column));
    // Levels are listed coarse to fine; a coarser bucket is a union of finer ones, so each folds the one before.
    let rows = minutes;
    for (const level of [...family.levels].reverse()) {
      rows = foldRows(rows, level.size, family);
      const changed = rows.filter((row) => counts.some((i) => row[i] !== 0));
      if (changed.length > 0) upserts.push(upsert(db, level.table, changed, family));
    }
  }
  // One table each: sent as they are folded, not one answer at a time.
  await Promise.all(upserts);
}

/** A rollup row as folded: its key ('' for a dimension folded away), then its counts in ROW_COUNTS order. */
type Row = [start: number, server: string, client: string, bucket: string, kind: string, ...counts: number[]];

const KEY_LENGTH = 5;
const DIMENSION_INDEX: Readonly<Record<RowDimension, number>> = { server: 1, client: 2, bucket: 3, kind: 4 };

/**
 * Sums rows per time bucket of `size`, with the dimensions the family leaves out folded to '', sorted by key:
 * concurrent PostgreSQL transactions then lock shared rows in one order and cannot deadlock. Names never hold NUL
 * (the event schema rejects it), so NUL joins a key unambiguously.
 */
function foldRows(rows: readonly Row[], size: number, family: Family): Row[] {
  const kept = (['server', 'client', 'bucket', 'kind'] as const).map((dim) => family.dims.includes(dim));
  const sums = new Map<string, Row>();
  for (const row of rows) {
    const start = row[0] - (row[0] % size);
    const server = kept[0] ? row[1] : '';
    const client = kept[1] ? row[2] : '';
    const bucket = kept[2] ? row[3] : '';
    const kind = kept[3] ? row[4] : '';
    const key = `${start}\u0000${server}\u0000${client}\u0000${bucket}\u0000${kind}`;
    const sum = sums.get(key);
    if (sum === undefined) {
      sums.set(key, [start, server, client, bucket, kind, ...(row.slice(KEY_LENGTH) as number[])]);
      continue;
    }
    for (let i = KEY_LENGTH; i < row.length; i++) sum[i] = (sum[i] as number) + (row[i] as number);
  }
  return [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

async function upsert(db: SqlRunner, table: string, rows: Row[], family: Family): Promise<void> {
  const keys: RowsColumn[] = [['start', 'bigint'], ...family.dims.map((dim): RowsColumn => [dim, 'text'])];
  const counts = family.counts.map((column) => KEY_LENGTH + ROW_COUNTS.indexOf(column));
  const dims = family.dims.map((dim) => DIMENSION_INDEX[dim]);
  await upsertRows(
    db,
    addingUpsert(table, keys, family.counts),
    rows.map((row) => [row[0], ...dims.map((i) => row[i]), ...counts.map((i) => row[i])]),
  );
}

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

export interface RangeFilter {
  from?: number;
  to?: number;
  server?: string;
  client?: string;
  /**
   * Where raw events and the counts finer than an hour begin (api/services/retention.ts), an hour's start: before
   * it only the hour counts are kept, and a range's older part is read from them in whole hours.
   */
  eventsFrom: number | null;
}

/** A count row: what the alert metrics read of it (shared/alerts/values.ts CountLike) and where its bucket starts. */
export interface CountRow extends CountLike {
  /** Start of the time bucket when grouped by a step; 0 otherwise. */
  start: number;
}

/**
 * Counted and avoidable requests over [from, to), exactly: each span read from the coarsest rollup level whose
 * buckets fit inside it, the partial minutes at the very edges from the events themselves. With a step (a multiple
 * of a minute), rows are grouped by time bucket and only levels that nest in the step are used. Rows keep the
 * dimensions in `keep` ('' where folded), read from the family that keeps the fewest others (familyFor).
 */
export async function countRows(
  db: SqlRunner,
  filter: RangeFilter,
  stepMs: number | null,
  keep: readonly Dimension[] = ['server', 'kind'],
): Promise<CountRow[]> {
  const family = familyFor(filter, keep);
  const levels = family.levels.filter((level) => stepMs === null || stepMs % level.size === 0);
  const parts = segments(filter, levels);
  const bucketOf = (column: SQL) => (stepMs === null ? sql`0` : sql`${column} - (${column} % ${stepMs})`);
  const scope = (clientColumn: SQL) => scopeConditions(filter, clientColumn);
  const clientOut = (column: SQL) => (family.dims.includes('client') ? column : sql`''`);
  const serverOut = family.dims.includes('server') ? sql`server` : sql`''`;
  const selects: SQL[] = [];
  for (const [table, from, to] of parts.rollups) {
    const where = sql.join([sql`start >= ${from}`, sql`start < ${to}`, ...scope(sql`client`)], sql` AND `);
    selects.push(sql`SELECT ${bucketOf(sql`start`)} AS t, ${serverOut} AS server, ${clientOut(sql`client`)} AS client,
      bucket, kind, requests, avoidable FROM ${sql.raw(table)} WHERE ${where}`);
  }
  for (const [from, to] of parts.raw) {
    const where = sql.join(
      [sql`counted = 1`, sql`ts >= ${from}`, sql`ts < ${to}`, ...scope(sql`coalesce(${SENDER}, '')`)],
      sql` AND `,
    );
    selects.push(sql`SELECT ${bucketOf(sql`ts`)} AS t, server, ${clientOut(sql`coalesce(${SENDER}, '')`)} AS client,
      bucket, kind, 1 AS requests, avoidable FROM events WHERE ${where}`);
  }
  if (selects.length === 0) return [];
  // Dimensions the caller does not need are folded here, not in JavaScript: a day chart is 288 x 5 rows.
  const dims = (['server', 'client', 'kind'] as const).map((d) => (keep.includes(d) ? sql.raw(d) : sql`''`));
  const [server, client, kind] = dims as [SQL, SQL, SQL];
  return db.all<CountRow>(sql`SELECT t AS start, ${server} AS server, ${client} AS client, bucket, ${kind} AS kind,
      sum(requests) AS requests, sum(avoidable) AS avoidable
    FROM (${sql.join(selects, sql` UNION ALL `)}) AS parts
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(requests) <> 0 OR sum(avoidable) <> 0`);
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
 * Client conduct counts over [from, to), exactly, from the rollups (the edges finer than their finest level from the
 * events): what GET /clients shows, without reading the window's events. Per client (server ''), or per server
 * (client '') when `byServer`; a read narrowed to a server and a client, or a server's clients, takes the family
 * with both. Per server, `requests` counts every request it answered, named client or not; conduct only ever counts
 * named clients' requests.
 */
export async function conductRows(db: SqlRunner, filter: RangeFilter, byServer: boolean): Promise<ConductRow[]> {
  const clients = !byServer || filter.client !== undefined;
  const servers = byServer || filter.server !== undefined;
  const family = !clients ? SERVER_FAMILY : servers ? PAIR_FAMILY : CLIENT_FAMILY;
  const client = family.dims.includes('client') ? sql`client` : sql`''`;
  const server = byServer ? sql`server` : sql`''`;
  const parts = segments(filter, family.levels);
  const named = family.dims.includes('client') ? [sql`client <> ''`] : [];
  const probed = sql`CASE WHEN bucket = 'refusal' AND kind = 'not_declared' THEN undiscovered ELSE 0 END`;
  const reasons = sql.raw(REASON_COLUMNS.join(', '));
  const selects: SQL[] = parts.rollups.map(([table, from, to]) => {
    const where = sql.join(
      [sql`start >= ${from}`, sql`start < ${to}`, ...named, ...scopeConditions(filter, sql`client`)],
      sql` AND `,
    );
    return sql`SELECT ${client} AS client, ${server} AS server, requests, avoidable, ${reasons}, ${probed} AS probed
      FROM ${sql.raw(table)} WHERE ${where}`;
  });
  const reasonFlags = REASON_COLUMNS.map(
    (reason) => sql`CASE WHEN gate_reason = ${reason} THEN 1 ELSE 0 END AS ${sql.identifier(reason)}`,
  );
  for (const [from, to] of parts.raw) {
    const edge = family === SERVER_FAMILY ? rawEdge(filter, from, to) : rawClientEdge(filter, from, to);
    const sender = family.dims.includes('client') ? SENDER : sql`''`;
    selects.push(sql`SELECT ${sender} AS client, ${server} AS server, 1 AS requests, avoidable,
      ${sql.join(reasonFlags, sql`, `)}, CASE WHEN discovery_read = 0 AND ${SENDER} IS NOT NULL AND bucket = 'refusal'
        AND kind = 'not_declared' THEN 1 ELSE 0 END AS probed
      FROM events WHERE ${edge}`);
  }
  if (selects.length === 0) return [];
  const sums = sql.raw(
    ['requests', 'avoidable', ...REASON_COLUMNS, 'probed'].map((column) => `sum(${column}) AS ${column}`).join(', '),
  );
  return db.all<ConductRow>(sql`SELECT client, server, ${sums}
    FROM (${sql.join(selects, sql` UNION ALL `)}) AS parts GROUP BY client, server HAVING sum(requests) <> 0`);
}

export interface AvoidablePairRow {
  client: string;
  server: string;
  avoidable: number;
}

/** Avoidable requests per (client, server) over [from, to), exactly: which servers each client hurts most. */
export async function avoidablePairRows(db: SqlRunner, filter: RangeFilter): Promise<AvoidablePairRow[]> {
  const parts = segments(filter, AVOIDABLE_LEVELS);
  const selects: SQL[] = parts.rollups.map(([table, from, to]) => {
    const where = sql.join(
      [sql`start >= ${from}`, sql`start < ${to}`, sql`client <> ''`, ...scopeConditions(filter, sql`client`)],
      sql` AND `,
    );
    return sql`SELECT client, server, avoidable FROM ${sql.raw(table)} WHERE ${where}`;
  });
  for (const [from, to] of parts.raw) {
    selects.push(
      sql`SELECT ${SENDER} AS client, server, avoidable FROM events WHERE ${rawClientEdge(filter, from, to)}`,
    );
  }
  if (selects.length === 0) return [];
  return db.all<AvoidablePairRow>(sql`SELECT client, server, sum(avoidable) AS avoidable
    FROM (${sql.join(selects, sql` UNION ALL `)}) AS parts GROUP BY client, server HAVING sum(avoidable) <> 0`);
}

/** Counted events in an edge [from, to) of a range that the rollups do not cover. */
function rawEdge(filter: RangeFilter, from: number, to: number): SQL {
  return sql.join(
    [sql`counted = 1`, sql`ts >= ${from}`, sql`ts < ${to}`, ...scopeConditions(filter, SENDER)],
    sql` AND `,
  );
}

/** The same, of requests that named clients sent. */
function rawClientEdge(filter: RangeFilter, from: number, to: number): SQL {
  return sql.join([rawEdge(filter, from, to), sql`${SENDER} IS NOT NULL`], sql` AND `);
}

/** The family with the fewest rows that still keeps, or can filter on, every dimension a read needs. */
function familyFor(filter: RangeFilter, keep: readonly Dimension[]): Family {
  const server = keep.includes('server') || filter.server !== undefined;
  const client = keep.includes('client') || filter.client !== undefined;
  if (!client) return server ? SERVER_FAMILY : FLEET_FAMILY;
  return server ? PAIR_FAMILY : CLIENT_FAMILY;
}

/** The server and client a range is narrowed to, as conditions; the client column differs between sources. */
export function scopeConditions(filter: RangeFilter, clientColumn: SQL): SQL[] {
  return [
    ...(filter.server === undefined ? [] : [sql`server = ${filter.server}`]),
    ...(filter.client === undefined ? [] : [sql`${clientColumn} = ${filter.client}`]),
  ];
}

/** What a count row keeps apart besides its time bucket and classification bucket. */
export type Dimension = 'server' | 'client' | 'kind';

/**
 * Splits [from, to) into rollup spans, coarsest level first, and the edges finer than the finest level (levels are
 * listed coarse to fine), read from raw events.
 */
export function segments(
  filter: RangeFilter,
  levels: readonly Level[],
): { rollups: [string, number, number][]; raw: [number, number][] } {
  // Event times are validated to lie in [0, 8.64e15]: an open end is that bound.
  const from = filter.from ?? 0;
  const to = filter.to ?? MAX_TS;
  const kept = filter.eventsFrom ?? null;
  if (kept !== null && from < kept) {
    // Past retention: whole hours from the hour level (none when the step is finer than an hour).
    const hours = levels.find((level) => level.size === HOUR_MS);
    const older: [string, number, number][] =
      hours === undefined ? [] : [[hours.table, from - (from % HOUR_MS), ceilTo(Math.min(to, kept), HOUR_MS)]];
    if (to <= kept) return { rollups: older, raw: [] };
    const newer = segments({ ...filter, from: kept, eventsFrom: null }, levels);
    return { rollups: [...older, ...newer.rollups], raw: newer.raw };
  }
  const finest = levels[levels.length - 1]?.size ?? MINUTE_MS;
  const m1 = ceilTo(from, finest);
  const m2 = to - (to % finest);
  if (m1 >= m2 || levels.length === 0) return { rollups: [], raw: [[from, to]] };
  const raw: [number, number][] = [];
  if (from < m1) raw.push([from, m1]);
  if (m2 < to) raw.push([m2, to]);
  const rollups: [string, number, number][] = [];
  cover(m1, m2, levels, rollups);
  return { rollups, raw };
}

/** Whole buckets of the coarsest level in the middle, the remainders at either end from the finer levels. */
function cover(from: number, to: number, levels: readonly Level[], out: [string, number, number][]): void {
  if (from >= to) return;
  const [level, ...finer] = levels;
  if (level === undefined) return;
  const start = ceilTo(from, level.size);
  const end = to - (to % level.size);
  if (finer.length === 0 || start >= end) {
    if (finer.length === 0) out.push([level.table, from, to]);
    else cover(from, to, finer, out);
    return;
  }
  cover(from, start, finer, out);
  out.push([level.table, start, end]);
  cover(end, to, finer, out);
}

function ceilTo(value: number, size: number): number {
  const rest = value % size;
  return rest === 0 ? value : value - rest + size;
}
