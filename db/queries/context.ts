import { type SQL, sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { addCounts } from './lists.ts';
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

/** Adds the deltas to the counts of their minute, server, client, scopes and reason. */
export async function applyContextDeltas(db: SqlRunner, deltas: readonly ContextDelta[]): Promise<void> {
  await addCounts(
    db,
    'context_minute',
    [
      ['start', 'bigint'],
      ['server', 'text'],
      ['client', 'text'],
      ['requested', 'text'],
      ['applied', 'text'],
      ['reason', 'text'],
    ],
    'requests',
    deltas.map((d) => [d.minute, d.server, d.client ?? '', d.requested, d.applied ?? '', d.reason ?? '', d.requests]),
  );
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
