import { type SQL, sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';

/**
 * A list of strings as a one-column table (`value`), bound as ONE parameter: a JSON array read by json_each on
 * SQLite, a text[] unnested on PostgreSQL. Rendering thousands of separate parameters costs more than the query
 * they feed, and one parameter keeps the statement text, and so its prepared plan, the same for every list.
 */
export function listTable(db: SqlRunner, values: readonly string[]): SQL {
  return db.dialect === 'sqlite'
    ? sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`
    : sql`(SELECT unnest(${sql.param(values)}::text[]) AS value)`;
}
