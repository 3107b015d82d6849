import { type SQL, sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { type RowsColumn, rowsTable } from './lists.ts';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
const MAX_TS = 8.64e15 + 1;

/** A change to the counts of one minute, server, client, bucket and kind. */
export interface RollupDelta {
  minute: number;
  server: string;
  client: string | null;
  bucket: string;
  kind: string;
  requests: number;
  avoidable: number;
}

/** Adds deltas to both resolutions. Deltas are summed per row first: an upsert may touch a row once. */
export async function applyRollupDeltas(db: SqlRunner, deltas: readonly RollupDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  for (const [table, size] of [
    ['rollup_minute', MINUTE_MS],
    ['rollup_hour', HOUR_MS],
  ] as const) {
    const rows = sumDeltas(deltas, size);
    if (rows.length > 0) await upsert(db, table, rows);
  }
}

type Row = [
  start: number,
  server: string,
  client: string,
  bucket: string,
  kind: string,
  requests: number,
  avoidable: number,
];

function sumDeltas(deltas: readonly RollupDelta[], size: number): Row[] {
  const sums = new Map<string, Row>();
  for (const d of deltas) {
    const start = d.minute - (d.minute % size);
    const key = JSON.stringify([start, d.server, d.client ?? '', d.bucket, d.kind]);
    const row = sums.get(key) ?? [start, d.server, d.client ?? '', d.bucket, d.kind, 0, 0];
    row[5] += d.requests;
    row[6] += d.avoidable;
    sums.set(key, row);
  }
  // Sorted by key: concurrent PostgreSQL transactions then lock shared rows in one order and cannot deadlock.
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, row]) => row)
    .filter((row) => row[5] !== 0 || row[6] !== 0);
}

const ROLLUP_COLUMNS: readonly RowsColumn[] = [
  ['start', 'bigint'],
  ['server', 'text'],
  ['client', 'text'],
  ['bucket', 'text'],
  ['kind', 'text'],
  ['requests', 'integer'],
  ['avoidable', 'integer'],
];

async function upsert(db: SqlRunner, table: 'rollup_minute' | 'rollup_hour', rows: Row[]): Promise<void> {
  const name = sql.raw(table);
  await db.run(sql`INSERT INTO ${name} (start, server, client, bucket, kind, requests, avoidable)
    SELECT * FROM ${rowsTable(db, ROLLUP_COLUMNS, rows)} AS deltas WHERE true
    ON CONFLICT (start, server, client, bucket, kind) DO UPDATE
    SET requests = ${name}.requests + excluded.requests, avoidable = ${name}.avoidable + excluded.avoidable`);
}

export interface RangeFilter {
  from?: number;
  to?: number;
  server?: string;
  client?: string;
}

export interface CountRow {
  /** Start of the time bucket when grouped by a step; 0 otherwise. */
  start: number;
  server: string;
  /** '' when the requests named no client. */
  client: string;
  bucket: string;
  kind: string;
  requests: number;
  avoidable: number;
}

/**
 * Counted and avoidable requests over [from, to), exactly: whole hours from the hourly rollup, the whole minutes at
 * either edge from the minute rollup, and the partial minutes at the very edges from the events themselves. With a
 * step (a multiple of a minute), rows are grouped by time bucket; hours are used only when the step is whole hours.
 */
export async function countRows(db: SqlRunner, filter: RangeFilter, stepMs: number | null): Promise<CountRow[]> {
  const parts = segments(filter, stepMs === null || stepMs % HOUR_MS === 0);
  const bucketOf = (column: SQL) => (stepMs === null ? sql`0` : sql`${column} - (${column} % ${stepMs})`);
  const scope = (column: SQL) => [
    ...(filter.server === undefined ? [] : [sql`server = ${filter.server}`]),
    ...(filter.client === undefined ? [] : [sql`${column} = ${filter.client}`]),
  ];
  const selects: SQL[] = [];
  for (const [table, from, to] of parts.rollups) {
    const where = sql.join([sql`start >= ${from}`, sql`start < ${to}`, ...scope(sql`client`)], sql` AND `);
    selects.push(sql`SELECT ${bucketOf(sql`start`)} AS t, server, client, bucket, kind, requests, avoidable
      FROM ${sql.raw(table)} WHERE ${where}`);
  }
  for (const [from, to] of parts.raw) {
    const where = sql.join(
      [sql`counted = 1`, sql`ts >= ${from}`, sql`ts < ${to}`, ...scope(sql`coalesce(client, '')`)],
      sql` AND `,
    );
    selects.push(sql`SELECT ${bucketOf(sql`ts`)} AS t, server, coalesce(client, '') AS client, bucket, kind,
      1 AS requests, avoidable FROM events WHERE ${where}`);
  }
  if (selects.length === 0) return [];
  return db.all<CountRow>(sql`SELECT t AS start, server, client, bucket, kind, sum(requests) AS requests,
      sum(avoidable) AS avoidable
    FROM (${sql.join(selects, sql` UNION ALL `)}) AS parts
    GROUP BY t, server, client, bucket, kind HAVING sum(requests) <> 0 OR sum(avoidable) <> 0`);
}

type Table = 'rollup_minute' | 'rollup_hour';

/** Splits [from, to) into rollup ranges and raw event ranges (null bounds: open-ended). */
export function segments(
  filter: RangeFilter,
  hoursAllowed: boolean,
): { rollups: [Table, number, number][]; raw: [number, number][] } {
  // Event times are validated to lie in [0, 8.64e15]: an open end is that bound.
  const from = filter.from ?? 0;
  const to = filter.to ?? MAX_TS;
  const m1 = ceilTo(from, MINUTE_MS);
  const m2 = to - (to % MINUTE_MS);
  if (m1 >= m2) return { rollups: [], raw: [[from, to]] };
  const raw: [number, number][] = [];
  if (from < m1) raw.push([from, m1]);
  if (m2 < to) raw.push([m2, to]);
  const h1 = ceilTo(m1, HOUR_MS);
  const h2 = m2 - (m2 % HOUR_MS);
  if (!hoursAllowed || h1 >= h2) return { rollups: [['rollup_minute', m1, m2]], raw };
  const rollups: [Table, number, number][] = [['rollup_hour', h1, h2]];
  if (m1 < h1) rollups.push(['rollup_minute', m1, h1]);
  if (h2 < m2) rollups.push(['rollup_minute', h2, m2]);
  return { rollups, raw };
}

function ceilTo(value: number, size: number): number {
  const rest = value % size;
  return rest === 0 ? value : value - rest + size;
}
