import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { listTable } from './lists.ts';

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

/**
 * The configuration of the named servers. Inside an ingest transaction on PostgreSQL the rows are share-locked, so
 * a concurrent change of discovery or overrides waits for the batch (and then reclassifies it) instead of missing it.
 */
export async function loadServerConfigs(db: SqlRunner, names: readonly string[]): Promise<ServerConfigRow[]> {
  if (names.length === 0) return [];
  const lock = db.dialect === 'postgres' ? sql` FOR SHARE` : sql``;
  return db.all<ServerConfigRow>(sql`${SELECT_CONFIG} WHERE name IN ${listTable(db, names)}${lock}`);
}

export async function getServerConfig(db: SqlRunner, name: string): Promise<ServerConfigRow | null> {
  const rows = await db.all<ServerConfigRow>(sql`${SELECT_CONFIG} WHERE name = ${name}`);
  return rows[0] ?? null;
}

/** Locks a server's row for a configuration change (PostgreSQL); SQLite's writer lock already serialises it. */
export async function lockServerConfig(db: SqlRunner, name: string): Promise<ServerConfigRow | null> {
  await ensureServers(db, [name]);
  const lock = db.dialect === 'postgres' ? sql` FOR UPDATE` : sql``;
  const rows = await db.all<ServerConfigRow>(sql`${SELECT_CONFIG} WHERE name = ${name}${lock}`);
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
