import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { listTable } from './lists.ts';

/** Advisory lock spaces (the two-key form keeps them apart from any other user of advisory locks). */
export const LOCK_CLASS = {
  /**
   * The joining of one server's client and proxy records (shared/request-join.ts), taken before the insert: client
   * batches share it (they never pair with each other), a batch with proxy records takes it alone, so each side
   * sees the other's records committed.
   */
  join: 7_262,
  /** The gate of one (client, server): taken after the insert. */
  gatePartition: 7_261,
} as const;

const LOCK_SLOTS = 256;

/**
 * Serialises work on the same keys across PostgreSQL transactions until they commit. Keys map onto LOCK_SLOTS
 * advisory locks per class (the lock table is shared and small; a batch may touch thousands of keys), taken in
 * slot order; every transaction takes its join locks before its gate locks, so none can deadlock. SQLite's
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
