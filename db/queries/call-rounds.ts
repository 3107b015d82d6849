import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { storedDigest } from '../stored-identity.ts';
import { coldEventsIn } from './cold-events.ts';
import { bytesFromHex } from './lists.ts';

/** A counted record of a request identity, as an MRTR call's rounds are found among them. */
export interface RoundRow {
  eventId: string;
  seq: number;
  ts: number;
  bucket: string;
  kind: string;
  continuation: number;
}

/** The record the rounds are read around, by what its row keeps. */
export interface RoundAnchor {
  seq: number;
  ts: number;
  server: string;
  client: string;
  identity: string;
}

/**
 * The counted records of the anchor's client, server and request identity before it (newest first) and after it
 * (oldest first), at most `limit` each and within `withinMs`: an MRTR call keeps its identity on every round (DOMAIN.md
 * section 10), so its rounds are among them. Read off the identity index (identity, server, ts).
 */
export async function roundsAround(
  db: SqlRunner,
  anchor: RoundAnchor,
  withinMs: number,
  limit: number,
): Promise<{ before: RoundRow[]; after: RoundRow[] }> {
  const digest = bytesFromHex(db, sql`${storedDigest(anchor.identity, anchor.server)}`);
  const same = sql`identity = ${digest} AND server = ${anchor.server} AND counted = 1 AND client = ${anchor.client}`;
  const columns = sql`event_id AS "eventId", seq, ts, bucket, kind, continuation`;
  const { ts, seq } = anchor;
  const [before, after] = await Promise.all([
    db.all<RoundRow>(sql`SELECT ${columns} FROM events WHERE ${same} AND ts >= ${ts - withinMs} AND ts <= ${ts}
      AND (ts < ${ts} OR seq < ${seq}) ORDER BY ts DESC, seq DESC LIMIT ${limit}`),
    db.all<RoundRow>(sql`SELECT ${columns} FROM events WHERE ${same} AND ts >= ${ts} AND ts <= ${ts + withinMs}
      AND (ts > ${ts} OR seq > ${seq}) ORDER BY ts, seq LIMIT ${limit}`),
  ]);
  // PostgreSQL answers bigint columns as text.
  const typed = (row: RoundRow) => ({ ...row, seq: Number(row.seq), ts: Number(row.ts) });
  const cold = await coldRoundsAround(db, anchor, withinMs);
  if (cold.length === 0) return { before: before.map(typed), after: after.map(typed) };
  const isBefore = (row: RoundRow) => row.ts < ts || (row.ts === ts && row.seq < seq);
  const all = [...before.map(typed), ...after.map(typed), ...cold].sort((a, b) => a.ts - b.ts || a.seq - b.seq);
  return {
    before: all.filter(isBefore).reverse().slice(0, limit),
    after: all.filter((row) => !isBefore(row) && !(row.ts === ts && row.seq === seq)).slice(0, limit),
  };
}

/** The anchor's rounds among the events packed in cold blocks (db/queries/cold-events.ts), both sides. */
async function coldRoundsAround(db: SqlRunner, anchor: RoundAnchor, withinMs: number): Promise<RoundRow[]> {
  const { identity, server, client, ts } = anchor;
  const events = await coldEventsIn(
    db,
    { server, from: ts - withinMs, to: ts + withinMs + 1 },
    (event) => event.identity === identity && event.counted === 1 && event.client === client,
    { columns: ['identity'], test: (row) => row.identity === identity },
    ['identity', 'counted', 'client', 'eventId', 'seq', 'ts', 'bucket', 'kind', 'continuation'],
  );
  return events.map(({ eventId, seq, ts, bucket, kind, continuation }) => ({
    eventId,
    seq,
    ts,
    bucket,
    kind,
    continuation,
  }));
}
