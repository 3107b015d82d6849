/**
 * The tables of both stores, declared once (ADR 1): db/schema/pg.ts and db/schema/sqlite.ts build them into drizzle
 * tables, from which drizzle-kit generates each store's migrations; nothing at runtime reads them. Where a store must
 * differ, the declaration says so under that store's name, e.g. `{ sqlite: { withoutRowId: true } }`; the test
 * tests/api/schema-parity.test.ts holds both migrated stores to the declaration.
 */
import type { Column, SQL } from 'drizzle-orm';

/** What a column holds; each adapter maps it to its dialect's type. SQLite keeps every integer kind as `integer`. */
export type ColumnType =
  /** Text of any length. */
  | 'text'
  /** A count or a code: PostgreSQL `integer`. */
  | 'integer'
  /** A 0/1 flag or a small number: PostgreSQL `smallint`. */
  | 'smallint'
  /** Epoch milliseconds, a seq or an id: PostgreSQL `bigint`, read as a JS number. */
  | 'bigint'
  /** PostgreSQL `double precision`, SQLite `real`. */
  | 'double'
  /** PostgreSQL `bytea`, SQLite `blob`, read as a Buffer. */
  | 'bytes'
  /** A key the store numbers: PostgreSQL `bigserial`, SQLite `integer primary key autoincrement`. */
  | 'serial';

export interface ColumnSpec {
  readonly type: ColumnType;
  readonly name: string;
  readonly notNull: boolean;
  readonly primaryKey: boolean;
  readonly default?: number;
  /** Only where SQLite must differ (see `serial`). */
  readonly sqlite?: { readonly autoIncrement: boolean };
}

export class ColumnDecl {
  constructor(readonly spec: ColumnSpec) {}

  notNull(): ColumnDecl {
    return new ColumnDecl({ ...this.spec, notNull: true });
  }

  primaryKey(): ColumnDecl {
    return new ColumnDecl({ ...this.spec, primaryKey: true });
  }

  default(value: number): ColumnDecl {
    return new ColumnDecl({ ...this.spec, default: value });
  }
}

const columnOf = (type: ColumnType) => (name: string) =>
  new ColumnDecl({ type, name, notNull: false, primaryKey: false });

export const text = columnOf('text');
export const integer = columnOf('integer');
export const smallint = columnOf('smallint');
export const bigint = columnOf('bigint');
export const double = columnOf('double');
export const bytes = columnOf('bytes');

/**
 * The table's primary key, numbered by the store. `{ sqlite: { autoIncrement: false } }` keeps SQLite's plain rowid,
 * which may hand out again the id of the newest row once it is deleted.
 */
export function serial(name: string, exception?: { sqlite: { autoIncrement: false } }): ColumnDecl {
  return new ColumnDecl({ type: 'serial', name, notNull: false, primaryKey: true, ...exception });
}

/** A key over columns `C`: the adapter passes its dialect's columns, so that a partial index's condition names them. */
export type TableKey<C> = PrimaryKeyDecl<C> | IndexDecl<C>;

/** At least one column, as drizzle's key builders take them. */
export type KeyColumns<C> = readonly [C, ...C[]];

export class PrimaryKeyDecl<C> {
  constructor(readonly columns: KeyColumns<C>) {}
}

export class IndexDecl<C> {
  constructor(
    readonly name: string,
    readonly unique: boolean,
    readonly columns: KeyColumns<C>,
    /** A partial index's condition. */
    readonly condition?: SQL,
  ) {}

  where(condition: SQL): IndexDecl<C> {
    return new IndexDecl(this.name, this.unique, this.columns, condition);
  }
}

export const primaryKey = <C>(...columns: KeyColumns<C>) => new PrimaryKeyDecl(columns);

export const index = (name: string) => ({ on: <C>(...columns: KeyColumns<C>) => new IndexDecl(name, false, columns) });

export const uniqueIndex = (name: string) => ({
  on: <C>(...columns: KeyColumns<C>) => new IndexDecl(name, true, columns),
});

export interface TableDecl<K extends string = string> {
  readonly name: string;
  readonly columns: Readonly<Record<K, ColumnDecl>>;
  keys<C extends Column>(columns: Readonly<Record<K, C>>): TableKey<C>[];
  /**
   * SQLite keeps the table WITHOUT ROWID: its key is the row, stored once. Drizzle cannot declare it, so the
   * migration that creates or rebuilds the table adds it by hand and the parity test checks it is there.
   */
  readonly sqliteWithoutRowId: boolean;
}

export interface TableExceptions {
  sqlite?: { withoutRowId: true };
}

/** The exception every keyed count table takes: SQLite keeps it WITHOUT ROWID. */
export const SQLITE_WITHOUT_ROWID: TableExceptions = { sqlite: { withoutRowId: true } };

/** One table for both stores; `keys` lists its composite primary key and its indexes. */
export function defineTable<K extends string>(
  name: string,
  columns: Record<K, ColumnDecl>,
  keys: <C extends Column>(columns: Readonly<Record<K, C>>) => TableKey<C>[] = () => [],
  exceptions: TableExceptions = {},
): TableDecl<K> {
  return { name, columns, keys, sqliteWithoutRowId: exceptions.sqlite?.withoutRowId ?? false };
}

/** Applies `build` to each value of `record`, keeping its keys: an adapter builds every table, a table every column. */
export function mapValues<T extends object, R>(record: T, build: (value: T[keyof T]) => R): { [K in keyof T]: R } {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, build(value)])) as { [K in keyof T]: R };
}
