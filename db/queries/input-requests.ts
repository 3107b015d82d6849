import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { identityText, storedDigest } from '../stored-identity.ts';
import { queued } from './fold-queue.ts';
import { rowsTable } from './lists.ts';

/**
 * The stored side of MCP 2026-07-28's input requests (db/schema/input-requests.ts): one row per request a server made
 * inside a counted round's answer, keyed by the round and the name the server gave it.
 */
export interface InputRequestRow {
  eventId: string;
  ts: number;
  server: string;
  inputKey: string;
  client: string | null;
  method: string;
  /** The public identity (DOMAIN.md section 5), of a request to `server`. */
  identity: string;
}

/** A round, by the events' dedupe key. */
export interface RoundKey {
  eventId: string;
  ts: number;
  server: string;
}

/** Stores the rows not stored yet and answers those it stored: a round folded twice asks once. */
export async function insertInputRequests(db: SqlRunner, rows: readonly InputRequestRow[]): Promise<InputRequestRow[]> {
  if (rows.length === 0) return [];
  const table = rowsTable(
    db,
    [
      ['event_id', 'text'],
      ['ts', 'bigint'],
      ['server', 'text'],
      ['input_key', 'text'],
      ['client', 'text'],
      ['method', 'text'],
      ['identity', 'bytea'],
    ],
    rows.map((r) => [r.eventId, r.ts, r.server, r.inputKey, r.client, r.method, storedDigest(r.identity, r.server)]),
  );
  // WHERE true: SQLite would read ON CONFLICT as the ON of a join.
  const stored = await db.all<{ eventId: string; ts: number; server: string; inputKey: string }>(sql`INSERT INTO
      input_requests (event_id, ts, server, input_key, client, method, identity)
    SELECT event_id, ts, server, input_key, client, method, identity FROM ${table} AS r WHERE true
    ON CONFLICT DO NOTHING RETURNING event_id AS "eventId", ts, server, input_key AS "inputKey"`);
  const keyOf = (r: { eventId: string; ts: number | string; server: string; inputKey: string }) =>
    JSON.stringify([r.eventId, Number(r.ts), r.server, r.inputKey]);
  const taken = new Set(stored.map(keyOf));
  return rows.filter((row) => taken.has(keyOf(row)));
}

/** Deletes the input requests of these rounds and answers what they asked, where and when. */
export async function deleteInputRequests(
  db: SqlRunner,
  rounds: readonly RoundKey[],
): Promise<{ ts: number; server: string; identity: string }[]> {
  if (rounds.length === 0) return [];
  const table = rowsTable(
    db,
    [
      ['id', 'text'],
      ['ts', 'bigint'],
      ['server', 'text'],
    ],
    rounds.map((r) => [r.eventId, r.ts, r.server]),
  );
  const rows = await db.all<{ ts: number; server: string; identity: string }>(sql`DELETE FROM input_requests
    WHERE (event_id, ts, server) IN (SELECT id, ts, server FROM ${table} AS k)
    RETURNING ts, server, ${identityText(db)} AS identity`);
  return rows.map((row) => ({ ...row, ts: Number(row.ts) }));
}

/** Per method, how many requests a server made in [from, to) and how many different ones (identities) they were. */
export async function askedBy(
  db: SqlRunner,
  { server, from, to }: { server: string; from: number; to: number },
): Promise<{ method: string; requests: number; identities: number }[]> {
  const rows = await db.all<{ method: string; requests: number; identities: number }>(sql`SELECT method,
      count(*) AS requests, count(DISTINCT identity) AS identities FROM input_requests
    WHERE server = ${server} AND ts >= ${from} AND ts < ${to} GROUP BY method ORDER BY method`);
  return rows.map((row) => ({ ...row, requests: Number(row.requests), identities: Number(row.identities) }));
}

/**
 * One page, in arrival order, of the counted rounds that answered `input_required` and are already folded (a queued
 * one's fold reads its input requests): what api/services/input-requests.ts backfills after migration
 * input_requests.
 */
export async function foldedRoundsPage(
  db: SqlRunner,
  afterSeq: number,
  limit: number,
): Promise<(RoundKey & { seq: number; client: string | null; bucket: string })[]> {
  const rows = await db.all<RoundKey & { seq: number; client: string | null; bucket: string }>(sql`SELECT seq,
      event_id AS "eventId", ts, server, client, bucket FROM events
    WHERE seq > ${afterSeq} AND bucket = 'pending' AND counted = 1 AND ${queued(db)} = 0 ORDER BY seq LIMIT ${limit}`);
  return rows.map((row) => ({ ...row, seq: Number(row.seq), ts: Number(row.ts) }));
}
