import type { CounterFamily } from '../counters/family.ts';
import {
  bigint,
  type ColumnDecl,
  defineTable,
  integer,
  primaryKey,
  SQLITE_WITHOUT_ROWID,
  type TableDecl,
  text,
} from './tables.ts';

/**
 * The tables of a counter family, one per level, from its declaration (db/counters/family.ts): `start`, its keys and
 * its counts, keyed in `order` (the columns a read narrows by first), WITHOUT ROWID on SQLite (the key is the row).
 */
export function counterTables(family: CounterFamily<never>, order: readonly [string, ...string[]]): TableDecl[] {
  const columns: Record<string, ColumnDecl> = { start: bigint('start').notNull() };
  for (const key of family.keys) columns[key.column] = (key.type === 'text' ? text : integer)(key.column).notNull();
  for (const count of family.counts) columns[count.column] = integer(count.column).notNull();
  return family.levels.map(({ table }) =>
    defineTable(
      table,
      columns,
      (t) => {
        const [first, ...rest] = order.map((column) => t[column]);
        if (first === undefined || rest.some((c) => c === undefined)) throw new Error(`${table}: key not declared`);
        return [primaryKey(first, ...(rest as (typeof first)[]))];
      },
      SQLITE_WITHOUT_ROWID,
    ),
  );
}
