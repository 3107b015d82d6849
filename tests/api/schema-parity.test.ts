import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTER_TABLES } from '../../db/counters/levels.ts';
import * as declared from '../../db/schema/index.ts';
import { type Catalog, readCatalog, sqliteWithoutRowIdTables, type TableShape } from '../support/catalog.ts';
import { openTempPostgres, openTempSqlite, STORE_KINDS, type TestStore } from '../support/stores.ts';

// Both stores' migrations are generated from one declaration (db/schema), and some are edited by hand (WITHOUT ROWID,
// data moves): this holds what they build to the declaration and to each other.

const postgresUnavailable = STORE_KINDS.find((kind) => kind.name === 'postgres')?.unavailable ?? null;
const tables = Object.values(declared);

describe.skipIf(postgresUnavailable !== null)('the schema of a fresh SQLite store and PostgreSQL store', () => {
  let stores: TestStore[] = [];
  let sqlite: Catalog;
  let postgres: Catalog;
  let sqliteWithoutRowId: string[];

  beforeAll(async () => {
    const sqliteStore = await openTempSqlite();
    stores.push(sqliteStore);
    const postgresStore = await openTempPostgres();
    stores.push(postgresStore);
    sqlite = await readCatalog(sqliteStore.store);
    postgres = await readCatalog(postgresStore.store);
    sqliteWithoutRowId = await sqliteWithoutRowIdTables(sqliteStore.store);
  });

  afterAll(async () => {
    for (const store of stores) await store.dispose();
    stores = [];
  });

  it('has the declared tables, no more', () => {
    const names = tables.map((table) => table.name).sort();
    expect(Object.keys(sqlite).sort()).toEqual(names);
    expect(Object.keys(postgres).sort()).toEqual(names);
  });

  it('has the declared columns in each table', () => {
    for (const table of tables) {
      const columns = Object.values(table.columns)
        .map((column) => column.spec.name)
        .sort();
      expect(sqlite[table.name]?.columns, table.name).toEqual(columns);
      expect(postgres[table.name]?.columns, table.name).toEqual(columns);
    }
  });

  it('has the same not-null columns, primary keys and indexes in both', () => {
    // One comparison per table, so that a failure names the table and shows just its difference.
    for (const name of Object.keys(postgres)) expect(sqlite[name], name).toEqual(postgresAsSqlite(name));
  });

  it('keeps events, their line blocks and the counter tables in time partitions on PostgreSQL', async () => {
    const rows = await stores[1]?.store.all<{ name: string; strategy: string; key: string }>(sql`
      SELECT c.relname AS name, p.partstrat AS strategy, a.attname AS key FROM pg_partitioned_table AS p
      JOIN pg_class AS c ON c.oid = p.partrelid
      JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = p.partattrs[0] ORDER BY c.relname COLLATE "C"`);
    const counters = COUNTER_TABLES.map(({ table }) => ({ name: table, strategy: 'r', key: 'start' }));
    expect(rows).toEqual(
      [
        { name: 'cold_blocks', strategy: 'r', key: 'hour' },
        { name: 'event_bodies', strategy: 'r', key: 'id' },
        { name: 'events', strategy: 'r', key: 'ts' },
        ...counters,
      ].sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
  });

  /**
   * PostgreSQL's table as SQLite has it. The differences: partitioned `events` cannot have its primary key on seq
   * alone (every unique key of a partitioned table holds the partition key, ADR 9), so it has none and finds a row
   * by seq through events_seq_idx, where SQLite's seq is the rowid; and the hour lists' index carries the server and
   * digest (migration identity_lists_covered), which SQLite's, of a WITHOUT ROWID table, holds as the table's key.
   */
  function postgresAsSqlite(name: string): TableShape | undefined {
    const shape = postgres[name];
    if (name === 'identity_hour' && shape !== undefined) {
      const lists = { columns: ['start', 'sends'], unique: false, partial: true };
      expect(shape.indexes.identity_hour_sends_idx).toEqual({ ...lists, included: ['server', 'identity'] });
      return { ...shape, indexes: { ...shape.indexes, identity_hour_sends_idx: { ...lists, included: [] } } };
    }
    if (name !== 'events' || shape === undefined) return shape;
    expect(shape.primaryKey).toEqual([]);
    expect(shape.indexes.events_seq_idx).toEqual({ columns: ['seq'], included: [], unique: false, partial: false });
    const { events_seq_idx: _seq, ...indexes } = shape.indexes;
    return { ...shape, primaryKey: ['seq'], indexes };
  }

  it('keeps WITHOUT ROWID on SQLite exactly the tables the declaration says', () => {
    const declaredWithoutRowId = tables.filter((table) => table.sqliteWithoutRowId).map((table) => table.name);
    expect(sqliteWithoutRowId).toEqual(declaredWithoutRowId.sort());
  });
});
