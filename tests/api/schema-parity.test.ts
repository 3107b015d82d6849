import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as declared from '../../db/schema/index.ts';
import { type Catalog, readCatalog, sqliteWithoutRowIdTables } from '../support/catalog.ts';
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
    for (const name of Object.keys(postgres)) expect(sqlite[name], name).toEqual(postgres[name]);
  });

  it('keeps WITHOUT ROWID on SQLite exactly the tables the declaration says', () => {
    const declaredWithoutRowId = tables.filter((table) => table.sqliteWithoutRowId).map((table) => table.name);
    expect(sqliteWithoutRowId).toEqual(declaredWithoutRowId.sort());
  });
});
