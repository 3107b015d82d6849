import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../../db/runner.ts';

/** How many rows a table of the store holds: what a test of retention, partitions or compaction checks. */
export async function tableRows(db: SqlRunner, table: string): Promise<number> {
  const [row] = await db.all<{ n: number | string }>(sql`SELECT count(*) AS n FROM ${sql.raw(table)}`);
  return Number(row?.n ?? 0);
}
