import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { listTable, type RowsColumn, rowsTable } from './lists.ts';

/** The gate replays that run behind the commit (db/schema/gate-pending.ts). */

export interface PendingReplay {
  partition: string;
  token: string;
  since: number;
}

/** Which of these partitions have a replay due. */
export async function pendingPartitions(db: SqlRunner, partitions: readonly string[]): Promise<Set<string>> {
  if (partitions.length === 0) return new Set();
  const rows = await db.all<{ partition: string }>(
    sql`SELECT partition FROM gate_pending WHERE partition IN ${listTable(db, partitions)}`,
  );
  return new Set(rows.map((row) => row.partition));
}

/**
 * Makes the partitions' replays due. A partition already due keeps its token unless `reset`: events appended to it
 * are stepped on by the replay in progress, but a shadowed record, a reclassification or a late event change what
 * it read, so its result must not be written. `since` stays that of the first change not yet replayed.
 */
export async function markPending(
  db: SqlRunner,
  partitions: readonly { partition: string; reset: boolean }[],
  now: number,
): Promise<void> {
  for (const reset of [true, false]) {
    const rows = partitions
      .filter((p) => p.reset === reset)
      .map((p) => p.partition)
      .sort()
      .map((partition) => [partition, randomUUID(), now]);
    if (rows.length === 0) continue;
    const onConflict = reset ? sql`DO UPDATE SET token = excluded.token` : sql`DO NOTHING`;
    await db.run(sql`INSERT INTO gate_pending (partition, token, since)
      SELECT * FROM ${rowsTable(db, PENDING_COLUMNS, rows)} AS rows WHERE true
      ON CONFLICT (partition) ${onConflict}`);
  }
}

const PENDING_COLUMNS: readonly RowsColumn[] = [
  ['partition', 'text'],
  ['token', 'text'],
  ['since', 'bigint'],
];

/** The oldest due replays first. */
export async function duePending(db: SqlRunner, limit: number): Promise<PendingReplay[]> {
  return db.all<PendingReplay>(sql`SELECT partition, token, since FROM gate_pending ORDER BY since, partition
    LIMIT ${limit}`);
}

/**
 * Takes a replay off the due list if its token is still the one it was computed under; false when the partition's
 * stored events changed meanwhile (the replay is stale: it stays due, with the new token) or another process wrote
 * it first.
 */
export async function takePending(db: SqlRunner, replay: PendingReplay): Promise<boolean> {
  const rows = await db.all<{ partition: string }>(sql`DELETE FROM gate_pending
    WHERE partition = ${replay.partition} AND token = ${replay.token} RETURNING partition`);
  return rows.length > 0;
}

/** How many replays are due, and since when the oldest has been (null when none). */
export async function pendingLag(db: SqlRunner): Promise<{ partitions: number; since: number | null }> {
  const rows = await db.all<{ partitions: number | string; since: number | string | null }>(
    sql`SELECT COUNT(*) AS partitions, MIN(since) AS since FROM gate_pending`,
  );
  const row = rows[0];
  return { partitions: Number(row?.partitions ?? 0), since: row?.since == null ? null : Number(row.since) };
}
