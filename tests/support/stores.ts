import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadDemo } from '../../api/demo/load.ts';
import type { Store } from '../../db/runner.ts';
import { openStore, type StoreConfig } from '../../db/store.ts';

/** The server the Postgres suites run against; `.ci/run` makes sure one is up. */
export const POSTGRES_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestStore {
  store: Store;
  /** Where it is, for a server process of its own (`lens serve`) to open it too. */
  config: StoreConfig;
  /** Closes the store and opens it again, as a restarted server does (its migrations run again): `store` is the new. */
  reopen(): Promise<Store>;
  dispose(): Promise<void>;
}

export interface StoreKind {
  name: 'sqlite' | 'postgres';
  /** Null when this kind can run here; otherwise why it is skipped. */
  unavailable: string | null;
  open(): Promise<TestStore>;
}

/** A fresh embedded store in its own temporary data directory. */
export async function openTempSqlite(): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), 'lens-test-'));
  return openDisposable({ dataDir: dir }, async () => rmSync(dir, { recursive: true, force: true }));
}

/** A fresh embedded store holding the demo federation's day, ending at `now`: the world of the tests that read it. */
export async function openDemoSqlite(now: number): Promise<TestStore> {
  const db = await openTempSqlite();
  await loadDemo(db.store, now);
  return db;
}

/** A fresh PostgreSQL database per call, dropped afterwards: no test shares rows with another. */
export async function openTempPostgres(): Promise<TestStore> {
  const database = await tempDatabase();
  return openDisposable({ databaseUrl: database.url, dataDir: tmpdir() }, database.drop);
}

/** A new, empty PostgreSQL database: its URL, and how to drop it. */
export async function tempDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `lens_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await asAdmin(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => asAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function openDisposable(config: StoreConfig, cleanup: () => Promise<void>): Promise<TestStore> {
  const opened: TestStore = {
    store: await openStore(config),
    config,
    async reopen() {
      await opened.store.close();
      opened.store = await openStore(config);
      return opened.store;
    },
    async dispose() {
      await opened.store.close();
      await cleanup();
    },
  };
  return opened;
}

async function asAdmin(statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

async function postgresProblem(): Promise<string | null> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return `no PostgreSQL at ${POSTGRES_ADMIN_URL} (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const postgresUnavailable = await postgresProblem();
if (postgresUnavailable !== null) {
  // CI must never skip the Postgres suite; a developer without a server is told plainly that it was skipped.
  if (process.env.CI) throw new Error(`PostgreSQL is required in CI: ${postgresUnavailable}`);
  console.warn(
    `\n*** PostgreSQL suite SKIPPED: ${postgresUnavailable}. Set TEST_DATABASE_URL or start a server. ***\n`,
  );
}

export const STORE_KINDS: StoreKind[] = [
  { name: 'sqlite', unavailable: null, open: openTempSqlite },
  { name: 'postgres', unavailable: postgresUnavailable, open: openTempPostgres },
];
