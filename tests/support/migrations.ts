import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { migrate as migrateSqlite } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres';
import { migrate as migratePostgres } from 'drizzle-orm/node-postgres/migrator';
import { PgDialect } from 'drizzle-orm/pg-core';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import pg from 'pg';
import { expect } from 'vitest';
import { CountChanges } from '../../db/counters/changes.ts';
import { FINE_COUNTER_TABLES, HOUR_COUNTER_TABLES } from '../../db/counters/levels.ts';
import type { Store } from '../../db/runner.ts';
import { addMigrationFunctions } from '../../db/sqlite.ts';
import { identityText } from '../../db/stored-identity.ts';
import { type Catalog, readCatalog } from './catalog.ts';
import { tempDatabase } from './stores.ts';

function migrationsFolder(dialect: string): string {
  return fileURLToPath(new URL(`../../db/migrations/${dialect === 'sqlite' ? 'sqlite' : 'pg'}/`, import.meta.url));
}

/**
 * Runs again the statements of the migration named `name` (`all_time_totals`), or whose file starts with it (`0012_`,
 * for the early migrations that drizzle-kit named at random), that `keep` selects (by default those holding `verb`:
 * the ones that rebuild counts from the stored events), or all of them.
 */
export async function replayMigration(
  store: Store,
  dialect: string,
  name: string,
  keep: string | ((statement: string) => boolean) = '',
): Promise<void> {
  const folder = migrationsFolder(dialect);
  const migration = readdirSync(folder).find((file) => file.startsWith(name) || file.endsWith(`_${name}.sql`)) ?? '';
  const statements = readFileSync(join(folder, migration), 'utf8').split('--> statement-breakpoint');
  const kept = statements.filter(typeof keep === 'string' ? (text) => text.includes(keep) : keep);
  expect(kept.length).toBeGreaterThan(0);
  for (const statement of kept) await store.run(sql.raw(statement));
}

/** A copy of the store's migrations without the one named `name` (its tag after the number) and those after it. */
function migrationsBefore(dialect: 'sqlite' | 'postgres', name: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'lens-migrations-'));
  cpSync(migrationsFolder(dialect), copy, { recursive: true });
  const journalFile = join(copy, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((entry) => entry.tag.replace(/^\d+_/, '') === name);
  expect(at, name).toBeGreaterThan(0);
  for (const entry of journal.entries.slice(at)) rmSync(join(copy, `${entry.tag}.sql`));
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return copy;
}

/**
 * The catalog (tests/support/catalog.ts) of a new store migrated up to the migration named `name`, not including it:
 * the schema the release before it left. A test that turns a store back into that release's shape holds it to this.
 */
export async function catalogBefore(dialect: 'sqlite' | 'postgres', name: string): Promise<Catalog> {
  const folder = migrationsBefore(dialect, name);
  try {
    return dialect === 'sqlite' ? await sqliteCatalogAt(folder) : await postgresCatalogAt(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function sqliteCatalogAt(folder: string): Promise<Catalog> {
  const file = new Database(':memory:');
  try {
    addMigrationFunctions(file);
    migrateSqlite(drizzleSqlite({ client: file }), { migrationsFolder: folder });
    const dialect = new SQLiteSyncDialect();
    return await readCatalog({
      dialect: 'sqlite',
      all: async <T>(query: SQL) => {
        const { sql: text, params } = dialect.sqlToQuery(query);
        return file.prepare(text).all(params) as T[];
      },
      run: () => Promise.reject(new Error('reads only')),
    });
  } finally {
    file.close();
  }
}

async function postgresCatalogAt(folder: string): Promise<Catalog> {
  const database = await tempDatabase();
  const pool = new pg.Pool({ connectionString: database.url });
  try {
    await migratePostgres(drizzlePostgres({ client: pool }), { migrationsFolder: folder });
    const dialect = new PgDialect();
    return await readCatalog({
      dialect: 'postgres',
      all: async <T>(query: SQL) => {
        const { sql: text, params } = dialect.sqlToQuery(query);
        return (await pool.query(text, params)).rows as T[];
      },
      run: () => Promise.reject(new Error('reads only')),
    });
  } finally {
    await pool.end();
    await database.drop();
  }
}

/** The migrator's record of the last migration applied, gone: the next start applies it again. */
async function forgetLastMigration(store: Store): Promise<void> {
  // The migrator's own table numbers no row on SQLite: the last migration is the one created last.
  const journal = store.dialect === 'sqlite' ? sql`__drizzle_migrations` : sql`drizzle.__drizzle_migrations`;
  await store.run(sql`DELETE FROM ${journal} WHERE created_at = (SELECT max(created_at) FROM ${journal})`);
}

/**
 * Turns the store back into what the release before the migration counts_by_time left: on PostgreSQL, the counter
 * tables as plain tables with their rows, keys and indexes. SQLite had no such migration.
 */
export async function asBeforeCountsByTime(store: Store): Promise<void> {
  await asBeforeColdBlocks(store);
  if (store.dialect === 'sqlite') return;
  for (const table of [...FINE_COUNTER_TABLES, ...HOUR_COUNTER_TABLES]) {
    const [key] = await store.all<{ name: string; definition: string }>(sql`SELECT conname AS name,
      pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = ${table}::regclass AND contype = 'p'`);
    const indexes = await store.all<{ definition: string }>(sql`SELECT pg_get_indexdef(indexrelid) AS definition
      FROM pg_index WHERE indrelid = ${table}::regclass AND NOT indisprimary`);
    await store.run(sql.raw(`ALTER TABLE ${table} RENAME TO ${table}_partitioned`));
    await store.run(sql.raw(`CREATE TABLE ${table} (LIKE ${table}_partitioned INCLUDING DEFAULTS)`));
    await store.run(sql.raw(`INSERT INTO ${table} SELECT * FROM ${table}_partitioned`));
    await store.run(sql.raw(`DROP TABLE ${table}_partitioned`));
    await store.run(sql.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${key?.name} ${key?.definition}`));
    // A partitioned table's index is defined ON ONLY the parent.
    for (const { definition } of indexes) await store.run(sql.raw(definition.replace(' ON ONLY ', ' ON ')));
  }
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration identity_lists_covered left: on PostgreSQL, the
 * hour lists' index without the server and digest. SQLite had no such migration.
 */
export async function asBeforeIdentityListsCovered(store: Store): Promise<void> {
  if (store.dialect === 'sqlite') return;
  await store.run(sql`DROP INDEX identity_hour_sends_idx`);
  await store.run(sql`CREATE INDEX identity_hour_sends_idx ON identity_hour (start, sends) WHERE sends > 1`);
  await forgetLastMigration(store);
}

/** Turns the store back into what the release before the migration gate_checkpoints left: no gate checkpoints. */
export async function asBeforeGateCheckpoints(store: Store): Promise<void> {
  await asBeforeIdentityListsCovered(store);
  for (const table of ['gate_checkpoints', 'gate_checkpoint_keys']) await store.run(sql.raw(`DROP TABLE ${table}`));
  await forgetLastMigration(store);
}

/** Turns the store back into what the release before the migration cold_blocks left: no cold blocks. */
export async function asBeforeColdBlocks(store: Store): Promise<void> {
  await asBeforeGateCheckpoints(store);
  await store.run(sql`DROP TABLE cold_blocks`);
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration method_failures left: no failures per method (the
 * code counts' input requests, which that release still counted, are not put back: no test reads them).
 */
export async function asBeforeMethodFailures(store: Store): Promise<void> {
  await asBeforeCountsByTime(store);
  for (const table of ['method_failure_minute', 'method_failure_hour']) await store.run(sql.raw(`DROP TABLE ${table}`));
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration input_requests left: no input requests, and the
 * identity hours without their sends.
 */
export async function asBeforeInputRequests(store: Store): Promise<void> {
  await asBeforeMethodFailures(store);
  const asked = await store.all<{ ts: number | string; server: string; identity: string }>(
    sql`SELECT ts, server, ${identityText(store)} AS identity FROM input_requests`,
  );
  const sends = new CountChanges();
  for (const row of asked) sends.addSend({ ts: Number(row.ts), server: row.server, identity: row.identity }, -1);
  await store.transaction((tx) => sends.write(tx));
  await store.run(sql`DROP TABLE input_requests`);
  await store.run(sql`DELETE FROM settings WHERE key LIKE 'input_requests_v1%'`);
  await forgetLastMigration(store);
}

/** Turns the store back into what the release before the migration record_sources left: no source format or frames. */
export async function asBeforeRecordSources(store: Store): Promise<void> {
  await asBeforeInputRequests(store);
  for (const column of ['source_format', 'frames'])
    await store.run(sql.raw(`ALTER TABLE events DROP COLUMN ${column}`));
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration content_view left: act_profile a smallint on
 * PostgreSQL (as the profiles it held then fit), and no mark of the version 2 backfill (record_sources undone first).
 */
export async function asBeforeContentView(store: Store): Promise<void> {
  await asBeforeRecordSources(store);
  if (store.dialect === 'postgres') {
    await store.run(sql`ALTER TABLE events ALTER COLUMN act_profile SET DATA TYPE smallint USING act_profile % 4096`);
  }
  await store.run(sql`DELETE FROM settings WHERE key LIKE 'actionability_v2%'`);
  await forgetLastMigration(store);
}

/** Turns the store back into what the release before the migration era_counts left (content_view undone first). */
export async function asBeforeEraCounts(store: Store): Promise<void> {
  await asBeforeContentView(store);
  for (const table of ['era_server_minute', 'era_server_hour', 'era_client_minute', 'era_client_hour']) {
    await store.run(sql.raw(`DROP TABLE ${table}`));
  }
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration failed_requests_by_time left (the migrations after
 * it undone first): no index of a server's failed requests by time.
 */
export async function asBeforeFailedRequestsByTime(store: Store): Promise<void> {
  await asBeforeEraCounts(store);
  await store.run(sql`DROP INDEX events_failed_ts_idx`);
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration storms_by_sender left: storms without their
 * sender and title and a probe storm's key null, open runs in gate_runs, and none of the request facts on the events
 * (the migrations after it undone first).
 */
export async function asBeforeStormsBySender(store: Store): Promise<void> {
  await asBeforeFailedRequestsByTime(store);
  await store.run(sql`DROP INDEX events_identity_server_ts_idx`);
  await store.run(sql`CREATE INDEX events_identity_server_ts_idx ON events (identity, server, ts)
    WHERE identity IS NOT NULL AND counted = 1`);
  for (const column of ['rpc_name', 'era', 'protocol_version', 'continuation']) {
    await store.run(sql.raw(`ALTER TABLE events DROP COLUMN ${column}`));
  }
  await store.run(sql`DELETE FROM settings WHERE key LIKE 'request_facts_v1%'`);
  if (store.dialect === 'postgres') {
    await store.run(sql`ALTER TABLE storms DROP COLUMN sent_by`);
    await store.run(sql`ALTER TABLE storms DROP COLUMN title`);
    await store.run(sql`ALTER TABLE storms ALTER COLUMN key DROP NOT NULL`);
    await store.run(sql`CREATE TABLE gate_runs (partition text NOT NULL, key text NOT NULL, last_ts bigint NOT NULL,
      run text NOT NULL, CONSTRAINT gate_runs_partition_key_pk PRIMARY KEY (partition, key))`);
  } else {
    const [table] = await store.all<{ text: string }>(
      sql`SELECT sql AS text FROM sqlite_master WHERE type = 'table' AND name = 'storms'`,
    );
    const before = (table?.text ?? '')
      .replace(/^CREATE TABLE [`"]?storms[`"]?/, 'CREATE TABLE storms_before')
      .replace(/\s*`sent_by` text NOT NULL,/, '')
      .replace(/\s*`title` text NOT NULL,/, '')
      .replace('`key` text NOT NULL', '`key` text');
    const indexes = await store.all<{ text: string }>(
      sql`SELECT sql AS text FROM sqlite_master WHERE type = 'index' AND tbl_name = 'storms' AND sql IS NOT NULL`,
    );
    await store.run(sql.raw(before));
    await store.run(sql`INSERT INTO storms_before SELECT id, client, server, kind, key, paths, attempts, avoidable,
      first_ts, last_ts, first_bucket, first_kind FROM storms`);
    await store.run(sql`DROP TABLE storms`);
    await store.run(sql`ALTER TABLE storms_before RENAME TO storms`);
    for (const index of indexes) await store.run(sql.raw(index.text));
    await store.run(sql`CREATE TABLE gate_runs (partition text NOT NULL, key text NOT NULL, last_ts integer NOT NULL,
      run text NOT NULL, PRIMARY KEY (partition, key)) WITHOUT ROWID`);
  }
  await store.run(sql`CREATE INDEX gate_runs_partition_last_ts_idx ON gate_runs (partition, last_ts)`);
  await forgetLastMigration(store);
}

/** The migration storm_ids changed no schema (it has every partition's storms written again): forgotten, it is undone. */
export async function asBeforeStormIds(store: Store): Promise<void> {
  await asBeforeStormsBySender(store);
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration denial_hours left (the migrations after it undone
 * first): no hour counts of the audit, denial_breach keyed without the answer's time, its time index on the time alone.
 */
export async function asBeforeDenialHours(store: Store): Promise<void> {
  await asBeforeStormIds(store);
  for (const table of ['denial_hour', 'denial_client_hour', 'denial_server_hour']) {
    await store.run(sql.raw(`DROP TABLE ${table}`));
  }
  await store.run(sql`DROP INDEX denial_breach_ts_idx`);
  if (store.dialect === 'postgres') {
    await store.run(
      sql`ALTER TABLE denial_breach DROP CONSTRAINT denial_breach_server_identity_answer_ts_answer_id_pk`,
    );
    await store.run(sql`ALTER TABLE denial_breach ADD CONSTRAINT denial_breach_server_identity_answer_id_pk
      PRIMARY KEY (server, identity, answer_id)`);
  } else {
    // SQLite changes a key by copying the table, as the migration did.
    await store.run(sql`CREATE TABLE denial_breach_before (server text NOT NULL, identity blob NOT NULL,
      answer_id text NOT NULL, answer_ts integer NOT NULL, client text NOT NULL, rpc_method text,
      new_session integer NOT NULL, refusal text NOT NULL, answer text NOT NULL,
      PRIMARY KEY (server, identity, answer_id))`);
    await store.run(sql`INSERT INTO denial_breach_before SELECT server, identity, answer_id, answer_ts, client,
      rpc_method, new_session, refusal, answer FROM denial_breach`);
    await store.run(sql`DROP TABLE denial_breach`);
    await store.run(sql`ALTER TABLE denial_breach_before RENAME TO denial_breach`);
  }
  await store.run(sql`CREATE INDEX denial_breach_ts_idx ON denial_breach (answer_ts)`);
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration denial_checkpoint left (the migrations after it
 * undone first): no audit checkpoints.
 */
export async function asBeforeDenialCheckpoint(store: Store): Promise<void> {
  await asBeforeDenialHours(store);
  for (const column of ['checkpoint_at', 'checkpoint', 'base_at', 'base']) {
    await store.run(sql.raw(`ALTER TABLE denial_identity DROP COLUMN ${column}`));
  }
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration actionability left (the migrations after it undone
 * first): no profile on the events, no actionability counts, nor the marks of their backfill.
 */
export async function asBeforeActionability(store: Store): Promise<void> {
  await asBeforeDenialCheckpoint(store);
  await store.run(sql`DROP TABLE actionability_hour`);
  await store.run(sql`DROP TABLE actionability_minute`);
  await store.run(sql`ALTER TABLE events DROP COLUMN act_profile`);
  await store.run(sql`DELETE FROM settings WHERE key LIKE 'actionability_v%'`);
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration storms_key_with_server left (the migrations after
 * it undone first): storms keyed by id.
 */
export async function asBeforeStormsKeyWithServer(store: Store): Promise<void> {
  await asBeforeActionability(store);
  if (store.dialect === 'postgres') {
    await store.run(sql`ALTER TABLE storms DROP CONSTRAINT storms_id_server_pk`);
    await store.run(sql`ALTER TABLE storms ADD CONSTRAINT storms_pkey PRIMARY KEY (id)`);
  } else {
    const [table] = await store.all<{ text: string }>(
      sql`SELECT sql AS text FROM sqlite_master WHERE type = 'table' AND name = 'storms'`,
    );
    const before = (table?.text ?? '')
      .replace(/^CREATE TABLE [`"]?storms[`"]?/, 'CREATE TABLE storms_before')
      .replace('`id` text NOT NULL', '`id` text PRIMARY KEY NOT NULL')
      .replace(/,\s*PRIMARY KEY\(`id`, `server`\)/, '');
    const indexes = await store.all<{ text: string }>(
      sql`SELECT sql AS text FROM sqlite_master WHERE type = 'index' AND tbl_name = 'storms' AND sql IS NOT NULL`,
    );
    await store.run(sql.raw(before));
    await store.run(sql`INSERT INTO storms_before SELECT * FROM storms`);
    await store.run(sql`DROP TABLE storms`);
    await store.run(sql`ALTER TABLE storms_before RENAME TO storms`);
    for (const index of indexes) await store.run(sql.raw(index.text));
  }
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration events_by_day left (and the migrations after it
 * undone first): on PostgreSQL, `events` and
 * `event_bodies` as plain tables (the blocks keep their day-numbered ids, which the migration maps to themselves) with
 * seq as the primary key; on both, the dedupe key on event_id alone; and the migration not yet applied. A test of an
 * earlier migration runs this first, to reach the shape that migration left.
 */
export async function asBeforeEventsByDay(store: Store): Promise<void> {
  await asBeforeStormsKeyWithServer(store);
  if (store.dialect === 'sqlite') {
    await store.run(sql`DROP INDEX events_event_id_uq`);
    await store.run(sql`CREATE UNIQUE INDEX events_event_id_uq ON events (event_id)`);
    await forgetLastMigration(store);
    return;
  }
  for (const [table, sequence, key] of [
    ['events', 'events_seq_seq', 'seq'],
    ['event_bodies', 'event_bodies_id_seq', 'id'],
  ] as const) {
    await store.run(sql.raw(`ALTER TABLE ${table} RENAME TO ${table}_partitioned`));
    await store.run(sql.raw(`ALTER SEQUENCE ${sequence} OWNED BY NONE`));
    await store.run(sql.raw(`CREATE TABLE ${table} (LIKE ${table}_partitioned INCLUDING DEFAULTS)`));
    await store.run(sql.raw(`INSERT INTO ${table} SELECT * FROM ${table}_partitioned`));
    await store.run(sql.raw(`DROP TABLE ${table}_partitioned`));
    await store.run(sql.raw(`ALTER SEQUENCE ${sequence} OWNED BY ${table}.${key}`));
    await store.run(sql.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY (${key})`));
  }
  await replayMigration(
    store,
    'postgres',
    'events_by_day',
    (statement) => statement.includes('CREATE INDEX') && !statement.includes('events_seq_idx'),
  );
  await store.run(sql`CREATE UNIQUE INDEX events_event_id_uq ON events (event_id)`);
  await forgetLastMigration(store);
}

/**
 * Turns the store back into what the release before the migration denial_audit left (the migrations after it undone
 * first): without the audit's tables.
 */
export async function asBeforeDenialAudit(store: Store): Promise<void> {
  await asBeforeEventsByDay(store);
  for (const table of ['denial_breach', 'denial_identity', 'denial_replay_hour']) {
    await store.run(sql.raw(`DROP TABLE ${table}`));
  }
  await forgetLastMigration(store);
}
