import { tmpdir } from 'node:os';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { citusSetupCommand } from '../../api/cli/citus-setup.ts';
import { citusPlan, citusProblem, storeTables } from '../../db/citus.ts';
import { NOT_BY_SERVER } from '../../db/distribution.ts';
import { openStore } from '../../db/store.ts';
import { openTempPostgres, openTempSqlite, STORE_KINDS, type TestStore, tempDatabase } from '../support/stores.ts';

// Issue 41 item 4 (docs/adr/0014-distribution-by-server.md): `lens citus-setup` places every table of a migrated
// store as db/distribution.ts says. Its calls are derived here from the real migrated schema; what they do on a Citus
// cluster is the ADR's "The run on Citus" (not in CI: Citus is built from source). On plain PostgreSQL it refuses.

const postgresUnavailable = STORE_KINDS.find((kind) => kind.name === 'postgres')?.unavailable ?? null;

describe.skipIf(postgresUnavailable !== null)('citus-setup on a migrated PostgreSQL', () => {
  let db: TestStore;
  let tables: string[];

  beforeAll(async () => {
    db = await openTempPostgres();
    tables = await storeTables(db.store);
  });

  afterAll(async () => db?.dispose());

  it('places every table once, each as db/distribution.ts says, the others by server beside events', () => {
    const calls = citusPlan(tables, new Set());
    expect(calls.map((call) => call.table).sort()).toEqual([...tables].sort());
    expect(tables).toContain('events');
    for (const { table, statement } of calls) {
      const placement = NOT_BY_SERVER[table];
      const expected =
        placement === undefined
          ? table === 'events'
            ? "create_distributed_table('events', 'server')"
            : `create_distributed_table('${table}', 'server', colocate_with => 'events')`
          : placement.as === 'reference'
            ? `create_reference_table('${table}')`
            : placement.as === 'coordinator'
              ? `citus_add_local_table_to_metadata('${table}')`
              : `create_distributed_table('${table}', '${placement.by}')`;
      expect(statement, table).toBe(`SELECT ${expected}`);
    }
  });

  it('places events before the tables co-located with it, and nothing twice when run again', () => {
    const calls = citusPlan(tables, new Set());
    const events = calls.findIndex((call) => call.table === 'events');
    const colocated = calls
      .map((call, at) => [call, at] as const)
      .filter(([call]) => call.statement.includes('colocate'));
    expect(colocated.length).toBeGreaterThan(0);
    for (const [call, at] of colocated) expect(at, call.table).toBeGreaterThan(events);
    // Once events and a third of the rest are placed, only the others are left, and none when all are.
    const placed = new Set(['events', ...tables.filter((_, at) => at % 3 === 0)]);
    expect(
      citusPlan(tables, placed)
        .map((call) => call.table)
        .sort(),
    ).toEqual(tables.filter((table) => !placed.has(table)).sort());
    expect(citusPlan(tables, new Set(tables))).toEqual([]);
  });

  it('refuses a database without Citus, changing nothing', async () => {
    // A database of its own, plain even when the suite runs on a Citus coordinator (TEST_CITUS_WORKERS).
    const plain = await tempDatabase();
    const store = await openStore({ databaseUrl: plain.url, dataDir: tmpdir() });
    try {
      expect(await citusProblem(store)).toMatch(/not a Citus coordinator: it has no citus extension/);
      vi.stubEnv('DATABASE_URL', plain.url);
      await expect(citusSetupCommand([])).rejects.toThrow(/not a Citus coordinator/);
      expect(await storeTables(store)).toEqual(tables);
      expect(await store.all(sql`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
      await store.close();
      await plain.drop();
    }
  });
});

describe('citus-setup on SQLite', () => {
  it('refuses the embedded store, which Citus cannot hold', async () => {
    const db = await openTempSqlite();
    try {
      expect(await citusProblem(db.store)).toMatch(/SQLite: Citus is a PostgreSQL extension/);
    } finally {
      await db.dispose();
    }
  });
});
