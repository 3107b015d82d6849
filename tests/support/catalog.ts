import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../../db/runner.ts';

/** A table as the store's own catalog describes it, in the same shape for both stores. */
export interface TableShape {
  /** Sorted. */
  columns: string[];
  /** Sorted. */
  notNull: string[];
  /** In key order. */
  primaryKey: string[];
  /**
   * Secondary indexes (not the primary key's): name → its key's columns in order, the columns it carries besides
   * (PostgreSQL's INCLUDE; none on SQLite), and whether it is unique or partial.
   */
  indexes: Record<string, { columns: string[]; included: string[]; unique: boolean; partial: boolean }>;
}

/**
 * Every table of the app's schema by name: `public` on PostgreSQL, `main` on SQLite without its own tables. A
 * partition of a partitioned table (PostgreSQL's day partitions of events) is part of its parent, not a table here.
 */
export type Catalog = Record<string, TableShape>;

interface ColumnRow {
  table: string;
  column: string;
  notNull: boolean | number;
  /** 0 when not in the primary key, else the column's place in it, from 1. */
  keyPlace: number;
}

interface IndexColumnRow {
  table: string;
  index: string;
  column: string;
  unique: boolean | number;
  partial: boolean | number;
  included: boolean | number;
}

// SQLite keeps its own tables (sqlite_sequence) and the migrator's journal in `main`; PostgreSQL keeps the journal in
// its own schema (drizzle), so neither is part of the app's schema.
const SQLITE_COLUMNS = sql`
  SELECT t.name AS "table", c.name AS "column", c."notnull" AS "notNull", c.pk AS "keyPlace"
  FROM pragma_table_list AS t JOIN pragma_table_info(t.name) AS c
  WHERE t.schema = 'main' AND t.type = 'table' AND t.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
    AND t.name <> '__drizzle_migrations'`;

// origin 'c': made by CREATE INDEX, not standing for the primary key.
const SQLITE_INDEX_COLUMNS = sql`
  SELECT t.name AS "table", i.name AS "index", c.name AS "column", i."unique" AS "unique", i.partial AS "partial",
    0 AS "included"
  FROM pragma_table_list AS t JOIN pragma_index_list(t.name) AS i JOIN pragma_index_info(i.name) AS c
  WHERE t.schema = 'main' AND t.type = 'table' AND i.origin = 'c'
  ORDER BY c.seqno`;

const POSTGRES_COLUMNS = sql`
  SELECT c.table_name AS "table", c.column_name AS "column", c.is_nullable = 'NO' AS "notNull",
    coalesce(k.ordinal_position, 0)::integer AS "keyPlace"
  FROM information_schema.columns AS c
  LEFT JOIN information_schema.table_constraints AS p
    ON p.table_schema = c.table_schema AND p.table_name = c.table_name AND p.constraint_type = 'PRIMARY KEY'
  LEFT JOIN information_schema.key_column_usage AS k
    ON k.constraint_schema = p.constraint_schema AND k.constraint_name = p.constraint_name
    AND k.column_name = c.column_name
  WHERE c.table_schema = 'public' AND NOT EXISTS (SELECT 1 FROM pg_class AS part
    JOIN pg_namespace AS pn ON pn.oid = part.relnamespace
    WHERE pn.nspname = c.table_schema AND part.relname = c.table_name AND part.relispartition)
    -- Tables only, as SQLite's side reads them: Citus adds views to public (citus_tables, citus_schemas).
    AND EXISTS (SELECT 1 FROM pg_class AS rel JOIN pg_namespace AS rn ON rn.oid = rel.relnamespace
      WHERE rn.nspname = c.table_schema AND rel.relname = c.table_name AND rel.relkind IN ('r', 'p'))`;

const POSTGRES_INDEX_COLUMNS = sql`
  SELECT t.relname AS "table", i.relname AS "index", a.attname AS "column", x.indisunique AS "unique",
    x.indpred IS NOT NULL AS "partial", k.place > x.indnkeyatts AS "included"
  FROM pg_index AS x
  JOIN pg_class AS i ON i.oid = x.indexrelid
  JOIN pg_class AS t ON t.oid = x.indrelid
  JOIN pg_namespace AS n ON n.oid = t.relnamespace
  CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, place)
  JOIN pg_attribute AS a ON a.attrelid = t.oid AND a.attnum = k.attnum
  WHERE n.nspname = 'public' AND NOT x.indisprimary AND NOT t.relispartition
  ORDER BY k.place`;

/** The store's tables, columns, not-null columns, primary keys and secondary indexes. */
export async function readCatalog(store: SqlRunner): Promise<Catalog> {
  const postgres = store.dialect === 'postgres';
  const columns = await store.all<ColumnRow>(postgres ? POSTGRES_COLUMNS : SQLITE_COLUMNS);
  const indexColumns = await store.all<IndexColumnRow>(postgres ? POSTGRES_INDEX_COLUMNS : SQLITE_INDEX_COLUMNS);
  const catalog: Catalog = {};
  const shapeOf = (table: string) => (catalog[table] ??= { columns: [], notNull: [], primaryKey: [], indexes: {} });
  for (const row of columns) {
    const shape = shapeOf(row.table);
    shape.columns.push(row.column);
    if (row.notNull) shape.notNull.push(row.column);
    if (row.keyPlace > 0) shape.primaryKey[row.keyPlace - 1] = row.column;
  }
  for (const row of indexColumns) {
    const indexes = shapeOf(row.table).indexes;
    indexes[row.index] ??= { columns: [], included: [], unique: Boolean(row.unique), partial: Boolean(row.partial) };
    const index = indexes[row.index];
    (row.included ? index?.included : index?.columns)?.push(row.column);
  }
  for (const shape of Object.values(catalog)) {
    shape.columns.sort();
    shape.notNull.sort();
  }
  return catalog;
}

/** The SQLite store's tables kept WITHOUT ROWID, sorted. */
export async function sqliteWithoutRowIdTables(store: SqlRunner): Promise<string[]> {
  const rows = await store.all<{ name: string }>(
    sql`SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND wr = 1 ORDER BY name`,
  );
  return rows.map((row) => row.name);
}
