import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { coldSpan } from './cold-reads.ts';

/**
 * The time of the oldest and newest stored event, row or cold block, epoch ms; null on an empty store. Two ends of
 * `events_ts_idx` (on PostgreSQL, of each day partition's) and of cold_blocks_hour_idx, so it costs the same at any
 * size of store.
 */
export async function storedEventSpan(db: SqlRunner): Promise<{ first: number; last: number } | null> {
  // Two statements, not MIN and MAX in one: each is then a single index probe on both engines.
  const [[oldest], [newest], cold] = await Promise.all([
    db.all<{ ts: number | string }>(sql`SELECT ts FROM events ORDER BY ts LIMIT 1`),
    db.all<{ ts: number | string }>(sql`SELECT ts FROM events ORDER BY ts DESC LIMIT 1`),
    coldSpan(db),
  ]);
  if (oldest === undefined || newest === undefined) return cold;
  // Past the hot window the oldest events are in cold blocks; a late event may still be a row older than them.
  const first = Math.min(Number(oldest.ts), cold?.first ?? Number.POSITIVE_INFINITY);
  return { first, last: Math.max(Number(newest.ts), cold?.last ?? 0) };
}
