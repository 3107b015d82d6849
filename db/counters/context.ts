import { type SQL, sql } from 'drizzle-orm';
import { addCounts, type RowsColumn } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import { COUNTER_FAMILIES } from './levels.ts';
import { MINUTE_MS, type RangeFilter, scopeConditions, segments } from './rollups.ts';

/** A change to the count of one minute's sampling requests of one kind. */
export interface ContextDelta {
  minute: number;
  server: string;
  client: string | null;
  requested: string;
  applied: string | null;
  reason: string | null;
  requests: number;
}

/** One row of context counts (`start`: its time bucket's): null applied is "not reported", null reason is "none given". */
export interface ContextRow {
  start: number;
  server: string;
  requested: string;
  applied: string | null;
  reason: string | null;
  requests: number;
}

const [MINUTES] = COUNTER_FAMILIES.context;
/** Without a client filter: the coarse levels leave the client out, the minutes at the edges come from MINUTES. */
const SERVER_LEVELS = [...COUNTER_FAMILIES.contextServer, MINUTES];

const SCOPE_KEYS: readonly RowsColumn[] = [
  ['requested', 'text'],
  ['applied', 'text'],
  ['reason', 'text'],
];

/** Adds the deltas to the counts of their minute (per client), and of their 5 minutes and hour (over all clients). */
export async function applyContextDeltas(db: SqlRunner, deltas: readonly ContextDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const scopes = (d: ContextDelta) => [d.requested, d.applied ?? '', d.reason ?? '', d.requests];
  await Promise.all([
    addCounts(
      db,
      MINUTES.table,
      [['start', 'bigint'], ['server', 'text'], ['client', 'text'], ...SCOPE_KEYS],
      ['requests'],
      deltas.map((d) => [d.minute, d.server, d.client ?? '', ...scopes(d)]),
    ),
    ...SERVER_LEVELS.slice(0, -1).map(({ table, size }) =>
      addCounts(
        db,
        table,
        [['start', 'bigint'], ['server', 'text'], ...SCOPE_KEYS],
        ['requests'],
        deltas.map((d) => [d.minute - (d.minute % size), d.server, ...scopes(d)]),
      ),
    ),
  ]);
}

/**
 * Counted sampling requests per time bucket, server, requested and applied scope and reason over [from, to),
 * exactly: each span from the coarsest level that fits in it (with a step, only levels that nest in it; with a
 * client filter, only the minutes, which keep the client), the sub-minute edges from the events.
 */
export async function contextRows(db: SqlRunner, filter: RangeFilter, stepMs: number | null): Promise<ContextRow[]> {
  const levels = filter.client === undefined ? SERVER_LEVELS : [MINUTES];
  const parts = segments(
    filter,
    levels.filter((level) => stepMs === null || stepMs % level.size === 0),
  );
  const selects: SQL[] = parts.rollups.map(([table, from, to]) => {
    const where = sql.join(
      [sql`start >= ${from}`, sql`start < ${to}`, ...scopeConditions(filter, sql`client`)],
      sql` AND `,
    );
    return sql`SELECT start, server, requested, nullif(applied, '') AS applied, nullif(reason, '') AS reason, requests
      FROM ${sql.raw(table)} WHERE ${where}`;
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
