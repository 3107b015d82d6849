import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestContext } from 'vitest';
import { loadDemo } from '../../api/demo/load.ts';
import { citusDatabase, placeOnCitus } from '../../db/citus.ts';
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

/**
 * A fresh embedded store in its own temporary data directory: a copy of one this process migrated once (opening it
 * runs the migrations as a server does, finding them applied), which opens in milliseconds instead of a fifth of a
 * second.
 */
export async function openTempSqlite(): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), 'lens-test-'));
  cpSync(await migratedSqlite(), dir, { recursive: true });
  return openDisposable({ dataDir: dir }, async () => rmSync(dir, { recursive: true, force: true }));
}

let sqliteTemplate: Promise<string> | undefined;

/** A data directory holding every migration and nothing else, made once per test process and removed at its exit. */
function migratedSqlite(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lens-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await (await openStore({ dataDir: dir })).close();
    return dir;
  })();
  return sqliteTemplate;
}

/** A fresh embedded store holding the demo federation's day, ending at `now`: the world of the tests that read it. */
export async function openDemoSqlite(now: number): Promise<TestStore> {
  const db = await openTempSqlite();
  await loadDemo(db.store, now);
  return db;
}

/**
 * A fresh PostgreSQL database per call, dropped afterwards: no test shares rows with another. It starts as a copy of
 * a migrated template, and opening it runs the migrations as a server does (finding them all applied): running all
 * of them for every test cost each PostgreSQL test one to three seconds, a third of the suite's time.
 */
export async function openTempPostgres(): Promise<TestStore> {
  if (CITUS_WORKERS.length > 0) return openTempCitus();
  const database = await tempDatabase(await migratedTemplate());
  return openDisposable({ databaseUrl: database.url, dataDir: tmpdir() }, database.drop);
}

/**
 * Opt-in, off in CI (docs/adr/0014-distribution-by-server.md, "The run on Citus"): the admin URLs of a Citus
 * cluster's workers, comma-separated, with TEST_DATABASE_URL its coordinator. Each store is then a database made on
 * every node with the citus extension, the workers added, migrated and placed by `lens citus-setup`'s calls. No
 * template: a copied database would not copy the workers' shards.
 */
const CITUS_WORKERS = (process.env.TEST_CITUS_WORKERS ?? '').split(',').filter((url) => url !== '');

/** Whether the PostgreSQL stores are made on a Citus cluster (TEST_CITUS_WORKERS set): off in CI. */
export const ON_CITUS = CITUS_WORKERS.length > 0;

/**
 * Where a test sees which sessions wait for a lock. On Citus a held row of a reference or distributed table is held on
 * a worker (the coordinator's backend waits for the worker's answer, `ClientRead`), so only the whole cluster's
 * activity shows the wait.
 */
export const LOCK_WAITS_VIEW = ON_CITUS ? 'citus_stat_activity' : 'pg_stat_activity';

/**
 * Skips a test of `kind` on a Citus store, saying why (the reporter shows the note beside the test); runs it on SQLite
 * and plain PostgreSQL. Only for a test whose own statements Citus refuses: a Citus store is placed after its
 * migrations (`lens citus-setup`), so a test that replays a migration on it tests what no Citus store goes through.
 */
export function skipOnCitus(skip: TestContext['skip'], kind: Pick<StoreKind, 'name'>, why: string): void {
  skip(kind.name === 'postgres' && ON_CITUS, `skipped on Citus: ${why}`);
}

async function openTempCitus(): Promise<TestStore> {
  const name = `lens_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const database = await citusDatabase(name, POSTGRES_ADMIN_URL, CITUS_WORKERS);
  await placeOnCitus(database.url);
  return openDisposable({ databaseUrl: database.url, dataDir: tmpdir() }, database.drop);
}

/** A new PostgreSQL database, empty or a copy of `template`: its URL, and how to drop it. */
export async function tempDatabase(template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `lens_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await asAdmin(`CREATE DATABASE ${name}${template === undefined ? '' : ` TEMPLATE ${template}`}`);
  return { url: databaseUrl(name), drop: () => asAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

const PG_MIGRATIONS = fileURLToPath(new URL('../../db/migrations/pg', import.meta.url));
/** Held while a template is looked for or built, so that test processes started together build it once. */
const TEMPLATE_LOCK = 7_700_001;
let template: Promise<string> | undefined;

/**
 * The name of a database holding every migration and nothing else, built once by whichever test process needs it
 * first. Its name carries a hash of the migration files, so a changed or added migration makes a new one; old ones
 * are left (a few MB each) for a checkout still on them. It is built under another name and renamed when done, so a
 * build that failed is never used.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const hash = createHash('sha256');
    for (const file of readdirSync(PG_MIGRATIONS, { recursive: true, encoding: 'utf8' }).sort()) {
      if (file.endsWith('.sql') || file.endsWith('.json'))
        hash.update(file).update(readFileSync(join(PG_MIGRATIONS, file)));
    }
    const name = `lens_template_${hash.digest('hex').slice(0, 16)}`;
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount === 0) {
        const building = `${name}_building`;
        await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${building}`);
        await (await openStore({ databaseUrl: databaseUrl(building), dataDir: tmpdir() })).close();
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    } finally {
      await admin.end();
    }
    return name;
  })();
  return template;
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
