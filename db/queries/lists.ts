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

/** A column of `rowsTable`: its name and its PostgreSQL type (SQLite takes the JSON value as it is). */
export type RowsColumn = readonly [name: string, pgType: 'text' | 'bigint' | 'integer' | 'smallint'];

/**
 * Many rows as a derived table with named columns, bound as one parameter (SQLite: a JSON array of arrays read by
 * json_each; PostgreSQL: one array per column, unnested). Batched writes join or insert from it, so a thousand
 * rows cost one statement instead of a thousand round trips to the writer.
 */
export function rowsTable(db: SqlRunner, columns: readonly RowsColumn[], rows: readonly (readonly unknown[])[]): SQL {
  if (db.dialect === 'sqlite') {
    const picks = columns.map(([name], i) => sql`json_extract(value, ${`$[${i}]`}) AS ${sql.identifier(name)}`);
    return sql`(SELECT ${sql.join(picks, sql`, `)} FROM json_each(${JSON.stringify(rows)}))`;
  }
  const arrays = columns.map(([, type], i) => sql`${sql.param(rows.map((row) => row[i]))}::${sql.raw(type)}[]`);
  const names = sql.join(
    columns.map(([name]) => sql.identifier(name)),
    sql`, `,
  );
  return sql`(SELECT * FROM unnest(${sql.join(arrays, sql`, `)}) AS rows_table(${names}))`;
}
