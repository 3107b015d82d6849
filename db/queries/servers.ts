import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { listTable } from './lists.ts';
import { LOCK_CLASS, lockKeys } from './locks.ts';

export interface ServerConfigRow {
  name: string;
  discovery: string | null;
  discoveryRaw: string | null;
  overrides: string;
  updatedAt: number;
}

const SELECT_CONFIG = sql`SELECT name, discovery, discovery_raw AS "discoveryRaw", overrides, updated_at AS "updatedAt"
  FROM servers`;

/**
 * Registers servers first seen in traffic, so they are listed before anyone configures them. The names go in sorted:
 * two PostgreSQL ingest transactions inserting the same new names in different orders each held one the other
 * waited for, a deadlock that failed one batch at the start of every concurrent ingest.
 */
export async function ensureServers(db: SqlRunner, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await db.run(sql`INSERT INTO servers (name, overrides, updated_at)
    SELECT value, '[]', 0 FROM ${listTable(db, names)} AS names WHERE true ORDER BY value
    ON CONFLICT (name) DO NOTHING`);
}

/** The configuration of the named servers, as last committed. */
export async function loadServerConfigs(db: SqlRunner, names: readonly string[]): Promise<ServerConfigRow[]> {
  if (names.length === 0) return [];
  return db.all<ServerConfigRow>(sql`${SELECT_CONFIG} WHERE name IN ${listTable(db, names)}`);
}

/**
 * Holds the named servers' configuration until the transaction ends (PostgreSQL): an ingest takes it shared before it
 * reads the configuration again, so that a change of discovery or overrides (lockServerConfig, exclusive) waits for
 * the batch and then reclassifies it instead of missing it, and a batch that starts after the change waits for it
 * and reads the new one. Advisory locks (lockKeys), not `FOR SHARE` of the rows: on Citus
 * (docs/adr/0014-distribution-by-server.md) `servers` is a reference table, and a `FOR SHARE` of its rows takes a
 * share lock and then a row-exclusive lock on its one shard, which conflict: two batches that each held the first
 * waited for each other's second, and one failed as a deadlock.
 */
export function shareServerConfigs(db: SqlRunner, names: readonly string[]): Promise<void> {
  return lockKeys(db, LOCK_CLASS.serverConfig, names, 'shared');
}

export async function getServerConfig(db: SqlRunner, name: string): Promise<ServerConfigRow | null> {
  const rows = await db.all<ServerConfigRow>(sql`${SELECT_CONFIG} WHERE name = ${name}`);
  return rows[0] ?? null;
}

/**
 * Holds a server's configuration for a change until the transaction ends (PostgreSQL; shareServerConfigs says how),
 * and reads it; SQLite's writer lock already serialises it.
 */
export async function lockServerConfig(db: SqlRunner, name: string): Promise<ServerConfigRow | null> {
  await lockKeys(db, LOCK_CLASS.serverConfig, [name]);
  await ensureServers(db, [name]);
  const rows = await db.all<ServerConfigRow>(sql`${SELECT_CONFIG} WHERE name = ${name}`);
  return rows[0] ?? null;
}

export async function saveServerConfig(db: SqlRunner, row: ServerConfigRow): Promise<void> {
  await db.run(sql`UPDATE servers SET discovery = ${row.discovery}, discovery_raw = ${row.discoveryRaw},
    overrides = ${row.overrides}, updated_at = ${row.updatedAt} WHERE name = ${row.name}`);
}

/** Every server with a discovery document (its normalised JSON): few rows, read to name access-log lines. */
export async function declaredServers(db: SqlRunner): Promise<{ name: string; discovery: string }[]> {
  return db.all<{ name: string; discovery: string }>(
    sql`SELECT name, discovery FROM servers WHERE discovery IS NOT NULL ORDER BY name`,
  );
}
