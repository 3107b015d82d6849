import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';

/**
 * The database's size in bytes, as its engine counts it: SQLite's pages (those still in the write-ahead log
 * included), PostgreSQL's database on disk. Neither reads a row.
 */
export async function storeBytes(db: SqlRunner): Promise<number> {
  const query =
    db.dialect === 'sqlite'
      ? sql`SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()`
      : sql`SELECT pg_database_size(current_database()) AS bytes`;
  const [row] = await db.all<{ bytes: number | string }>(query);
  return Number(row?.bytes ?? 0);
}

/** How many events the store holds, and the times of its first and last (null when it holds none). One pass. */
export async function storedEvents(
  db: SqlRunner,
): Promise<{ events: number; first: number | null; last: number | null }> {
  const [row] = await db.all<{ events: number | string; first: number | string | null; last: number | string | null }>(
    sql`SELECT count(*) AS events, min(ts) AS first, max(ts) AS last FROM events`,
  );
  const time = (value: number | string | null | undefined) =>
    value === null || value === undefined ? null : Number(value);
  return { events: Number(row?.events ?? 0), first: time(row?.first), last: time(row?.last) };
}
