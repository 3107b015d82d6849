import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { BODY_COLUMNS, EVENTS_WITH_BODIES, type WithBlock, withBodies } from './bodies.ts';
import { rowsTable } from './lists.ts';

/** A failed event stored before its profile was kept, with its line: api/services/actionability-backfill.ts reads it. */
export interface UnprofiledRow {
  seq: number;
  ts: number;
  server: string;
  counted: number;
  /** 1 while the event waits in the fold queue: its fold counts it, with the profile it has by then. */
  queued: number;
  body: string;
}

/** One page, in arrival order, of failed events without a profile after `afterSeq`. */
export async function unprofiledPage(db: SqlRunner, afterSeq: number, limit: number): Promise<UnprofiledRow[]> {
  const rows = await db.all<WithBlock<UnprofiledRow>>(sql`SELECT
      seq, ts, server, counted, CASE WHEN EXISTS (SELECT 1 FROM fold_queue AS q
        WHERE events.seq >= q.first_seq AND events.seq <= q.last_seq) THEN 1 ELSE 0 END AS queued, ${BODY_COLUMNS}
    FROM ${EVENTS_WITH_BODIES}
    WHERE seq > ${afterSeq} AND bucket <> 'ok' AND bucket <> 'pending' AND bucket <> 'unknown' AND act_profile IS NULL
    ORDER BY seq LIMIT ${limit}`);
  // PostgreSQL answers bigint columns as text.
  return withBodies<UnprofiledRow>(rows).map((row) => ({ ...row, seq: Number(row.seq), ts: Number(row.ts) }));
}

/** Stores the profiles read for the events (by seq). */
export async function writeProfiles(db: SqlRunner, profiles: readonly (readonly [seq: number, profile: number])[]) {
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
