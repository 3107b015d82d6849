import { type SQL, sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { rowsTable } from './lists.ts';
import { MINUTE_MS, type RangeFilter, scopeConditions, segments } from './rollups.ts';

/** A change to the count of one minute's sampling requests of one kind (context_minute). */
export interface ContextDelta {
  minute: number;
  server: string;
  client: string | null;
  requested: string;
  applied: string | null;
  reason: string | null;
  requests: number;
}

/** One row of context counts: null applied is "not reported", null reason is "none given". */
export interface ContextRow {
  start: number;
  server: string;
  requested: string;
  applied: string | null;
  reason: string | null;
  requests: number;
}

const MINUTES = [{ table: 'context_minute', size: MINUTE_MS }];

/** Adds the deltas, summed per row first (an upsert may touch a row once), in key order (no PostgreSQL deadlock). */
export async function applyContextDeltas(db: SqlRunner, deltas: readonly ContextDelta[]): Promise<void> {
  const sums = new Map<string, (string | number)[]>();
  for (const d of deltas) {
    const key = [d.minute, d.server, d.client ?? '', d.requested, d.applied ?? '', d.reason ?? ''];
    const id = JSON.stringify(key);
    const row = sums.get(id) ?? [...key, 0];
    row[6] = (row[6] as number) + d.requests;
    sums.set(id, row);
  }
  const rows = [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, row]) => row)
    .filter((row) => row[6] !== 0);
  if (rows.length === 0) return;
  const table = rowsTable(
    db,
    [
      ['start', 'bigint'],
      ['server', 'text'],
      ['client', 'text'],
      ['requested', 'text'],
      ['applied', 'text'],
      ['reason', 'text'],
      ['requests', 'integer'],
    ],
    rows,
  );
  await db.run(sql`INSERT INTO context_minute (start, server, client, requested, applied, reason, requests)
    SELECT * FROM ${table} AS deltas WHERE true
    ON CONFLICT (start, server, client, requested, applied, reason)
    DO UPDATE SET requests = context_minute.requests + excluded.requests`);
}

/**
 * Counted sampling requests per minute, server, requested and applied scope and reason over [from, to), exactly:
 * whole minutes from context_minute, the sub-minute edges from the events.
 */
export async function contextRows(db: SqlRunner, filter: RangeFilter): Promise<ContextRow[]> {
  const parts = segments(filter, MINUTES);
  const selects: SQL[] = parts.rollups.map(([, from, to]) => {
    const where = sql.join(
      [sql`start >= ${from}`, sql`start < ${to}`, ...scopeConditions(filter, sql`client`)],
      sql` AND `,
    );
    return sql`SELECT start, server, requested, nullif(applied, '') AS applied, nullif(reason, '') AS reason, requests
      FROM context_minute WHERE ${where}`;
  });
  for (const [from, to] of parts.raw) {
    const where = sql.join(
      [
        sql`counted = 1`,
        sql`ctx_requested IS NOT NULL`,
        sql`ts >= ${from}`,
        sql`ts < ${to}`,
        ...scopeConditions(filter, sql`coalesce(client, '')`),
      ],
      sql` AND `,
    );
    selects.push(sql`SELECT ts - ts % ${MINUTE_MS} AS start, server, ctx_requested AS requested,
      nullif(ctx_applied, '') AS applied, nullif(ctx_reason, '') AS reason, 1 AS requests FROM events WHERE ${where}`);
  }
  if (selects.length === 0) return [];
  return db.all<ContextRow>(sql`SELECT start, server, requested, applied, reason, sum(requests) AS requests
    FROM (${sql.join(selects, sql` UNION ALL `)}) AS parts GROUP BY 1, 2, 3, 4, 5`);
}
