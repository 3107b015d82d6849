import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { LINE_PLACE, type WithBlock, withBodies } from './bodies.ts';
import { queued } from './fold-queue.ts';
import { rowsTable } from './lists.ts';

/** A stored event with its profile as stored and its line: api/services/actionability-backfill.ts reads it again. */
export interface ProfiledRow {
  seq: number;
  ts: number;
  server: string;
  counted: number;
  bucket: string;
  actProfile: number | null;
  /** 1 while the event waits in the fold queue: its fold counts it, with the profile it has by then. */
  queued: number;
  body: string;
}

/** One page, in arrival order, of the events after `afterSeq` but input requests (never a failure, hidden or not). */
export async function profilePage(db: SqlRunner, afterSeq: number, limit: number): Promise<ProfiledRow[]> {
  const rows = await db.all<WithBlock<ProfiledRow>>(sql`SELECT
      seq, ts, server, counted, bucket, act_profile AS "actProfile", ${queued(db)} AS queued, ${LINE_PLACE}
    FROM events
    WHERE seq > ${afterSeq} AND bucket <> 'pending' AND bucket <> 'unknown'
    ORDER BY seq LIMIT ${limit}`);
  // PostgreSQL answers bigint columns as text.
  return (await withBodies<ProfiledRow>(db, rows)).map((row) => ({
    ...row,
    seq: Number(row.seq),
    ts: Number(row.ts),
    actProfile: row.actProfile === null ? null : Number(row.actProfile),
  }));
}

/** Stores the profiles read for the events (by seq); null for an event that is no failure after all. */
export async function writeProfiles(
  db: SqlRunner,
  profiles: readonly (readonly [seq: number, profile: number | null])[],
) {
  if (profiles.length === 0) return;
  const table = rowsTable(
    db,
    [
      ['seq', 'bigint'],
      ['profile', 'integer'],
    ],
    profiles,
  );
  await db.run(sql`UPDATE events SET act_profile = read.profile FROM ${table} AS read WHERE events.seq = read.seq`);
}
