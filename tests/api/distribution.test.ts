import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_BY_SERVER } from '../../db/distribution.ts';
import { openTempPostgres, STORE_KINDS, type TestStore } from '../support/stores.ts';

// Issue 19 item 5 (docs/adr/0014-distribution-by-server.md): a distributed engine (Citus) keeps a unique key only if
// it holds the distribution column, since each node checks its own rows. Every table is distributed by `server`
// except those db/distribution.ts lists, each with why; this reads PostgreSQL's catalog to hold the schema to that.

const postgresUnavailable = STORE_KINDS.find((kind) => kind.name === 'postgres')?.unavailable ?? null;

interface UniqueKey {
  table: string;
  index: string;
  columns: string[];
}

describe.skipIf(postgresUnavailable !== null)('the tables distributed by server', () => {
  let db: TestStore;
  let columns: Map<string, Set<string>>;
  let keys: UniqueKey[];

  beforeAll(async () => {
    db = await openTempPostgres();
    // Tables of the app's schema, not partitions (a partition's keys are its parent's).
    const tables = await db.store.all<{ table: string; column: string }>(sql`
      SELECT t.relname AS "table", a.attname AS "column" FROM pg_class AS t
      JOIN pg_namespace AS n ON n.oid = t.relnamespace
      JOIN pg_attribute AS a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = 'public' AND t.relkind IN ('r', 'p') AND NOT t.relispartition`);
    columns = new Map();
    for (const row of tables) columns.set(row.table, (columns.get(row.table) ?? new Set()).add(row.column));
    // Every unique index, the primary keys' and the unique constraints' among them; an expression or partial unique
    // index would have to hold the column as well, so its plain columns are what is checked.
    const rows = await db.store.all<Omit<UniqueKey, 'columns'> & { columns: string }>(sql`
      SELECT t.relname AS "table", i.relname AS "index",
        (SELECT string_agg(a.attname, ',' ORDER BY k.place) FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, place)
          JOIN pg_attribute AS a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns
      FROM pg_index AS x
      JOIN pg_class AS i ON i.oid = x.indexrelid
      JOIN pg_class AS t ON t.oid = x.indrelid
      JOIN pg_namespace AS n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND x.indisunique AND NOT t.relispartition`);
    keys = rows.map((row) => ({ ...row, columns: row.columns.split(',') }));
  });

  afterAll(async () => db?.dispose());

  it('lists only tables the store has', () => {
    for (const table of Object.keys(NOT_BY_SERVER)) expect(columns.has(table), table).toBe(true);
  });

  it('gives every other table a server column, held by each of its unique keys', () => {
    const byServer = [...columns.keys()].filter((table) => NOT_BY_SERVER[table] === undefined);
    expect(byServer).toContain('events');
    for (const table of byServer) expect(columns.get(table)?.has('server'), table).toBe(true);
    const missing = keys.filter((key) => byServer.includes(key.table) && !key.columns.includes('server'));
    expect(missing).toEqual([]);
  });

  it('holds the distribution column in every unique key of a table distributed by another', () => {
    for (const [table, placement] of Object.entries(NOT_BY_SERVER)) {
      if (placement.as !== 'distributed') continue;
      expect(columns.get(table)?.has(placement.by), `${table}.${placement.by}`).toBe(true);
      const missing = keys.filter((key) => key.table === table && !key.columns.includes(placement.by));
      expect(missing, table).toEqual([]);
    }
  });

  it('keeps the events and their keys distributable: the dedupe key and no primary key on seq alone', () => {
    expect(keys.filter((key) => key.table === 'events')).toEqual([
      { table: 'events', index: 'events_event_id_uq', columns: ['event_id', 'ts', 'server'] },
    ]);
    expect(keys.filter((key) => key.table === 'storms').map((key) => key.columns)).toEqual([['id', 'server']]);
  });
});
