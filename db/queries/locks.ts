import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { listTable } from './lists.ts';

/** Advisory lock spaces (the two-key form keeps them apart from any other user of advisory locks). */
export const LOCK_CLASS = {
  /** The gate of one (client, server). */
  gatePartition: 7_261,
  /**
   * The fold of stored events into the maintained numbers (api/services/fold.ts): one at a time across processes,
   * so that each record is joined and counted by exactly one fold, which sees every fold before it committed.
   */
  fold: 7_263,
  /** Making and dropping the time partitions of events and counts (db/queries/day-partitions.ts): one at a time. */
  partitions: 7_265,
  /** A server's configuration: shared by the ingests that classify by it, exclusive for a change (servers.ts). */
  serverConfig: 7_267,
  /**
   * A server's clock hour in cold blocks (db/queries/cold-events.ts): shared by the ingests that look in its blocks
   * for a re-sent event, exclusive for a compaction that packs more of its events, so neither misses the other.
   */
  coldHour: 7_269,
} as const;

const LOCK_SLOTS = 256;

/**
 * Serialises work on the same keys across PostgreSQL transactions until they commit. Keys map onto LOCK_SLOTS
 * advisory locks per class (the lock table is shared and small; a batch may touch thousands of keys), taken in
 * slot order; a transaction takes the fold lock before its gate locks, so none can deadlock. SQLite's
 * single writer already serialises, so there this does nothing.
 */
export async function lockKeys(
  db: SqlRunner,
  lockClass: number,
  keys: readonly string[],
  mode: 'exclusive' | 'shared' = 'exclusive',
): Promise<void> {
  if (db.dialect !== 'postgres' || keys.length === 0) return;
  const lock = mode === 'shared' ? sql`pg_advisory_xact_lock_shared` : sql`pg_advisory_xact_lock`;
  await db.all(sql`SELECT ${lock}(${lockClass}, slot)
    FROM (SELECT DISTINCT abs(hashtext(value) % ${LOCK_SLOTS}) AS slot FROM ${listTable(db, keys)} AS keys
      ORDER BY slot) AS ordered`);
}

/**
 * Takes the fold lock until the transaction ends, unless another transaction holds it: false then, and the caller
 * leaves the fold to that one. SQLite's single writer already serialises, so there it is always taken.
 */
export async function tryFoldLock(db: SqlRunner): Promise<boolean> {
  if (db.dialect !== 'postgres') return true;
  const rows = await db.all<{ taken: boolean }>(sql`SELECT pg_try_advisory_xact_lock(${LOCK_CLASS.fold}, 0) AS taken`);
  return rows[0]?.taken === true;
}

/** Waits for the fold lock until the transaction ends: a reclassification must not run beside a fold. */
export async function waitForFoldLock(db: SqlRunner): Promise<void> {
  if (db.dialect !== 'postgres') return;
  await db.all(sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS.fold}, 0)`);
}
