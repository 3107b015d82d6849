import { type SQL, sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';

/**
 * A list of strings as a one-column table (`value`), bound as ONE parameter: a JSON array read by json_each on
 * SQLite, a text[] unnested on PostgreSQL. Rendering thousands of separate parameters costs more than the query
 * they feed, and one parameter keeps the statement text, and so its prepared plan, the same for every list.
 */
export function listTable(db: SqlRunner, values: readonly string[] | readonly number[]): SQL {
  if (db.dialect === 'sqlite') return sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;
  const type = sql.raw(typeof values[0] === 'number' ? 'bigint[]' : 'text[]');
  return sql`(SELECT unnest(${sql.param(values)}::${type}) AS value)`;
}

/** SQLite takes at most 500 terms in a compound SELECT (SQLITE_MAX_COMPOUND_SELECT); a part stays well under. */
const UNION_TERMS = 400;

/**
 * Runs `query` over the UNION ALL of `terms`, in parts of a few hundred terms, and returns all their rows: one term
 * an hour, a window of weeks is past what SQLite takes in one statement.
 */
export async function allOfUnion<T>(db: SqlRunner, terms: readonly SQL[], query: (union: SQL) => SQL): Promise<T[]> {
  const parts: Promise<T[]>[] = [];
  for (let i = 0; i < terms.length; i += UNION_TERMS) {
    parts.push(db.all<T>(query(sql.join(terms.slice(i, i + UNION_TERMS), sql` UNION ALL `))));
  }
  return (await Promise.all(parts)).flat();
}

/**
 * Runs `leg` once per server of `items`, with that server's items, as the UNION ALL of the legs (allOfUnion), and
 * returns all their rows. A leg names its server as a constant: on Citus (docs/adr/0014-distribution-by-server.md)
 * that routes it whole to the one node holding the server's events, where Citus refuses the same query over the
 * servers of a table function (a LATERAL range behind OFFSET, a correlated subquery); plain PostgreSQL plans each leg
 * as it planned the one statement, a server's part of it.
 */
export function allPerServer<T extends { server: string }, R>(
  db: SqlRunner,
  items: readonly T[],
  leg: (server: string, items: T[]) => SQL,
): Promise<R[]> {
  const byServer = new Map<string, T[]>();
  for (const item of items) {
    const same = byServer.get(item.server);
    if (same === undefined) byServer.set(item.server, [item]);
    else same.push(item);
  }
  return allOfUnion<R>(
    db,
    [...byServer].map(([server, same]) => leg(server, same)),
    (union) => union,
  );
}

/**
 * A column of `rowsTable`: its name and its PostgreSQL type (SQLite takes the JSON value as it is). A `bytea` column's
 * values are given as hex text, which JSON and the writer thread's messages carry, and stored as bytes.
 */
export type RowsColumn = readonly [name: string, pgType: 'text' | 'bigint' | 'integer' | 'smallint' | 'bytea'];

/** Bytes from hex text (`hex` a parameter or a column; NULL stays NULL): what a `bytea` column's values go through. */
export function bytesFromHex(db: SqlRunner, hex: SQL): SQL {
  return db.dialect === 'sqlite' ? sql`unhex(${hex})` : sql`decode(${hex}, 'hex')`;
}

/**
 * Many rows as a derived table with named columns, bound as one parameter (SQLite: a JSON array of arrays read by
 * json_each; PostgreSQL: one array per column, unnested). Batched writes join or insert from it, so a thousand
 * rows cost one statement instead of a thousand round trips to the writer.
 */
export function rowsTable(db: SqlRunner, columns: readonly RowsColumn[], rows: readonly (readonly unknown[])[]): SQL {
  const value = ([name, type]: RowsColumn, carried: SQL) =>
    sql`${type === 'bytea' ? bytesFromHex(db, carried) : carried} AS ${sql.identifier(name)}`;
  if (db.dialect === 'sqlite') {
    const picks = columns.map((column, i) => value(column, sql`json_extract(value, ${`$[${i}]`})`));
    return sql`(SELECT ${sql.join(picks, sql`, `)} FROM json_each(${JSON.stringify(rows)}))`;
  }
  const arrays = columns.map(([, type], i) => {
    const carried = type === 'bytea' ? 'text' : type;
    return sql`${sql.param(rows.map((row) => row[i]))}::${sql.raw(carried)}[]`;
  });
  const names = sql.join(
    columns.map(([name]) => sql.identifier(name)),
    sql`, `,
  );
  const picks = columns.map((column) => value(column, sql`rows_table.${sql.identifier(column[0])}`));
  return sql`(SELECT ${sql.join(picks, sql`, `)} FROM unnest(${sql.join(arrays, sql`, `)}) AS rows_table(${names}))`;
}

/**
 * Adds counts to rows of `table` keyed by `keys`: the changes are summed per key first (an upsert may touch a row
 * once) and written in key order (concurrent PostgreSQL transactions then lock shared rows in one order and cannot
 * deadlock); keys whose changes all sum to 0 are left alone. Each change is its key's values, then one value per
 * column of `counts`.
 */
export async function addCounts(
  db: SqlRunner,
  table: string,
  keys: readonly RowsColumn[],
  counts: readonly string[],
  changes: readonly (readonly (string | number)[])[],
): Promise<void> {
  const width = keys.length + counts.length;
  const sums = new Map<string, (string | number)[]>();
  for (const change of changes) {
    // Names never hold NUL (the event schema rejects it), so NUL joins a key unambiguously.
    const id = change.slice(0, keys.length).join('\u0000');
    const row = sums.get(id);
    if (row === undefined) sums.set(id, change.slice(0, width));
    else for (let i = keys.length; i < width; i++) row[i] = (row[i] as number) + (change[i] as number);
  }
  const rows = [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, row]) => row)
    .filter((row) => row.some((value, i) => i >= keys.length && value !== 0));
  await upsertRows(db, addingUpsert(table, keys, counts), rows);
}

/** The upsert of counters: rows of `keys`, then `counts`, added to the stored row's where one is. */
export function addingUpsert(table: string, keys: readonly RowsColumn[], counts: readonly string[]): Upsert {
  return {
    table,
    columns: [...keys, ...counts.map((count): RowsColumn => [count, 'integer'])],
    key: keys.map(([column]) => column),
    set: counts.map((count) => `${count} = ${table}.${count} + excluded.${count}`).join(', '),
  };
}

/** A batched upsert: its table, its columns (with PostgreSQL types), the conflict key, and what a conflict sets. */
export interface Upsert {
  table: string;
  columns: readonly RowsColumn[];
  key: readonly string[];
  /** The DO UPDATE SET list, in terms of the table's columns and `excluded`: code constants, never values. */
  set: string;
}

/**
 * Inserts the rows, updating those whose key is already stored. SQLite binds each row to one prepared statement on
 * the writer (~40% faster than reading the rows out of a JSON parameter, and no JSON to build); PostgreSQL takes them
 * as arrays in one statement (`rowsTable`).
 */
export async function upsertRows(db: SqlRunner, upsert: Upsert, rows: readonly (readonly unknown[])[]): Promise<void> {
  if (rows.length === 0) return;
  const names = upsert.columns.map(([name]) => name).join(', ');
  const conflict = `ON CONFLICT (${upsert.key.join(', ')}) DO UPDATE SET ${upsert.set}`;
  if (db.runEach !== undefined) {
    const slots = upsert.columns.map(([, type]) => (type === 'bytea' ? 'unhex(?)' : '?')).join(', ');
    await db.runEach(`INSERT INTO ${upsert.table} (${names}) VALUES (${slots}) ${conflict}`, rows);
    return;
  }
  await db.run(sql`INSERT INTO ${sql.raw(upsert.table)} (${sql.raw(names)})
    SELECT * FROM ${rowsTable(db, upsert.columns, rows)} AS rows WHERE true ${sql.raw(conflict)}`);
}
