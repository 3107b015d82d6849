import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';

/**
 * The time of the oldest and newest stored event, epoch ms; null on an empty store. Two ends of `events_ts_idx`
 * (on PostgreSQL, of each day partition's), so it costs the same at any size of store.
 */
export async function storedEventSpan(db: SqlRunner): Promise<{ first: number; last: number } | null> {
  // Two statements, not MIN and MAX in one: each is then a single index probe on both engines.
  const [[oldest], [newest]] = await Promise.all([
    db.all<{ ts: number | string }>(sql`SELECT ts FROM events ORDER BY ts LIMIT 1`),
    db.all<{ ts: number | string }>(sql`SELECT ts FROM events ORDER BY ts DESC LIMIT 1`),
  ]);
  if (oldest === undefined || newest === undefined) return null;
  return { first: Number(oldest.ts), last: Number(newest.ts) };
}
