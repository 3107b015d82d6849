import { sql } from 'drizzle-orm';
import type { SavedCheckpoint } from '../../shared/analysis/gate-step.ts';
import type { SqlRunner } from '../runner.ts';
import { listTable, type Upsert, upsertRows } from './lists.ts';

/**
 * The gate's checkpoints at the cold horizon (gate_checkpoints, gate_checkpoint_keys; docs/adr/0021): written by
 * compaction's swap, read by a replay of a partition whose older events are packed.
 */

export async function loadCheckpoints(db: SqlRunner, partitions: readonly string[]): Promise<SavedCheckpoint[]> {
  if (partitions.length === 0) return [];
  return db.all<SavedCheckpoint>(sql`SELECT partition, frontier_ts AS "frontierTs", frontier_id AS "frontierId",
      wait_until AS "waitUntil", storms, final_storms AS "finalStorms"
    FROM gate_checkpoints WHERE partition IN ${listTable(db, partitions)}`);
}

const SAVE_CHECKPOINTS: Upsert = {
  table: 'gate_checkpoints',
  columns: [
    ['partition', 'text'],
    ['frontier_ts', 'bigint'],
    ['frontier_id', 'text'],
    ['wait_until', 'bigint'],
    ['storms', 'text'],
    ['final_storms', 'text'],
  ],
  key: ['partition'],
  set: `frontier_ts = excluded.frontier_ts, frontier_id = excluded.frontier_id, wait_until = excluded.wait_until,
    storms = excluded.storms, final_storms = excluded.final_storms`,
};

export async function saveCheckpoints(db: SqlRunner, rows: readonly SavedCheckpoint[]): Promise<void> {
  await upsertRows(
    db,
    SAVE_CHECKPOINTS,
    rows.map((row) => [row.partition, row.frontierTs, row.frontierId, row.waitUntil, row.storms, row.finalStorms]),
  );
}

/**
 * A replay from a checkpoint starts the partitions' key states as the checkpoint's (after clearing them): it writes
 * only the keys its events use (shared/analysis/gate-step.ts finishReplay).
 */
export async function restoreCheckpointKeys(db: SqlRunner, partitions: readonly string[]): Promise<void> {
  if (partitions.length === 0) return;
  await db.run(sql`INSERT INTO gate_keys (partition, key, state)
    SELECT partition, key, state FROM gate_checkpoint_keys WHERE partition IN ${listTable(db, partitions)}`);
}
