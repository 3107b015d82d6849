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

/** How many events the store holds (records of requests, both sides of a joined one), rows and packed in blocks. */
export async function storedEventCount(db: SqlRunner): Promise<number> {
  const [row] = await db.all<{ events: number | string | null }>(sql`SELECT (SELECT count(*) FROM events)
    + (SELECT coalesce(sum(rows), 0) FROM cold_blocks) AS events`);
  return Number(row?.events ?? 0);
}
