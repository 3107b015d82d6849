import { type SQL, sql } from 'drizzle-orm';
import type { SeedHour } from '../../shared/analysis/alarm-candidates.ts';
import type { HourCap, HourSends, IdentitySends, ListDepth } from '../../shared/analysis/identity-ranking.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import type { SqlRunner } from '../runner.ts';
import { addCounts, allOfUnion, listTable, rowsTable } from './lists.ts';

/** A change to the counted sends of one identity in the hour that holds `ts`. */
export interface IdentityDelta {
  ts: number;
  identity: string;
  sends: number;
}

/** Adds the deltas to the sends of their identity and hour. */
export async function applyIdentityDeltas(db: SqlRunner, deltas: readonly IdentityDelta[]): Promise<void> {
  await addCounts(
    db,
    'identity_hour',
    [
      ['start', 'bigint'],
      ['identity', 'text'],
    ],
    'sends',
    deltas.map(({ ts, identity, sends }) => [ts - (ts % HOUR_MS), identity, sends]),
  );
}

/**
 * The sends at the `depthOf(hour)`-th place of each hour's list of identities sent more than once, for the hours
 * whose list is at least that long (is cut there), optionally of one server. Read from the partial index on
 * (start, sends), skipping the places above it: a row in SQLite, not a string in JavaScript.
 */
export async function hourListCuts(
  db: SqlRunner,
  { fromHour, toHour, server }: { fromHour: number; toHour: number; server?: string },
  depthOf: ListDepth,
): Promise<Map<number, number>> {
  const ofServer = server === undefined ? sql`` : sql` AND ${serverPrefix(server)}`;
  const cuts: SQL[] = [];
  for (let start = fromHour; start < toHour; start += HOUR_MS) {
    cuts.push(sql`SELECT * FROM (SELECT start, sends FROM identity_hour WHERE start = ${start} AND sends > 1${ofServer}
      ORDER BY sends DESC LIMIT 1 OFFSET ${depthOf(start) - 1}) AS c`);
  }
  const rows = await allOfUnion<{ start: number; sends: number }>(db, cuts, (union) => union);
  return new Map(rows.map((row) => [row.start, row.sends]));
}

/**
 * The list rows (each hour's identities sent more than its cap) of the identities that can be among the `n` most
 * sent of the window: those whose most, `unlisted` plus what their lists hold over the caps, reaches the `n`-th
 * largest sends listed in whole hours (at least 2). Grouped in the store: a day's lists are ~40k rows, and making
 * them JavaScript strings cost more than the reading and grouping.
 */
export async function listContenders(
  db: SqlRunner,
  hours: readonly HourCap[],
  { server, n, unlisted }: { server?: string; n: number; unlisted: number },
): Promise<HourSends[]> {
  if (n <= 0 || hours.length === 0) return [];
  const table = rowsTable(
    db,
    [
      ['start', 'bigint'],
      ['cap', 'integer'],
      ['whole', 'integer'],
    ],
    hours.map(({ start, cap, whole }) => [start, cap, whole ? 1 : 0]),
  );
  const ofServer = server === undefined ? sql`` : sql` AND ${serverPrefix(server, sql`ih.identity`)}`;
  // SQLite seeks the partial index on the first bound of sends: the cap, not the index's own `sends > 1`.
  return db.all(sql`WITH lists AS (
      SELECT ih.identity, h.start, ih.sends, h.cap, h.whole FROM ${table} AS h
      JOIN identity_hour ih ON ih.start = h.start AND ih.sends > h.cap AND ih.sends > 1${ofServer}),
    grouped AS (
      SELECT identity, sum(CASE WHEN whole = 1 THEN sends ELSE 0 END) AS listed, sum(sends - cap) AS excess
      FROM lists GROUP BY identity),
    contenders AS (
      SELECT identity FROM grouped WHERE ${unlisted} + excess >= 2 AND ${unlisted} + excess >= coalesce(
        (SELECT listed FROM grouped ORDER BY listed DESC LIMIT 1 OFFSET ${n - 1}), 0))
    SELECT identity, start, sends FROM lists WHERE identity IN (SELECT identity FROM contenders)`);
}

/**
 * Counted sends of identities in given hours (`[identity, hour start]`), summed per identity: one keyed lookup per
 * pair, the join written from the pairs so that no plan scans the hours' rows.
 */
export async function identityHourSends(
  db: SqlRunner,
  pairs: readonly (readonly [string, number])[],
): Promise<IdentitySends[]> {
  if (pairs.length === 0) return [];
  const table = rowsTable(
    db,
    [
      ['identity', 'text'],
      ['start', 'bigint'],
    ],
    pairs,
  );
  return db.all(sql`SELECT t.identity, sum(h.sends) AS sends
    FROM ${table} AS t JOIN identity_hour h ON h.start = t.start AND h.identity = t.identity
    GROUP BY t.identity`);
}

/** Counted sends of each of `identities` over [from, to) from the events: the part-hours at a window's edges. */
export async function identityEventSends(
  db: SqlRunner,
  identities: readonly string[],
  { from, to }: { from: number; to: number },
): Promise<IdentitySends[]> {
  if (identities.length === 0 || from >= to) return [];
  return db.all(sql`SELECT identity, count(*) AS sends FROM events
    WHERE identity IS NOT NULL AND identity IN ${listTable(db, identities)} AND ts >= ${from} AND ts < ${to} AND counted = 1
    GROUP BY identity`);
}

export interface SendTime {
  identity: string;
  ts: number;
}

/**
 * The times of the counted sends of `identities` in a window, by identity then time: read from the identity index
 * alone, no event row (a client filter needs the rows). A server filter is read from the identities, which name
 * their server.
 */
export async function sendTimes(
  db: SqlRunner,
  identities: readonly string[],
  { from, to, server, client }: { from: number; to: number; server?: string; client?: string },
): Promise<SendTime[]> {
  if (identities.length === 0) return [];
  const conditions = [
    sql`identity IS NOT NULL`,
    sql`identity IN ${listTable(db, identities)}`,
    sql`counted = 1`,
    sql`ts >= ${from}`,
    sql`ts < ${to}`,
  ];
  if (server !== undefined) conditions.push(serverPrefix(server));
  if (client !== undefined) conditions.push(sql`client = ${client}`);
  return db.all(sql`SELECT identity, ts FROM events WHERE ${sql.join(conditions, sql` AND `)} ORDER BY identity, ts`);
}

export interface LatestSendRow {
  identity: string;
  server: string;
  ts: number;
  eventId: string;
  bucket: string;
  kind: string;
  rule: string;
  method: string | null;
}

/**
 * The counted sends at each `[identity, ts]` (an identity's latest time), optionally of one client: more than one
 * where sends share that time, and the caller picks by id.
 */
export async function sendsAt(
  db: SqlRunner,
  pairs: readonly (readonly [string, number])[],
  client?: string,
): Promise<LatestSendRow[]> {
  if (pairs.length === 0) return [];
  const table = rowsTable(
    db,
    [
      ['identity', 'text'],
      ['ts', 'bigint'],
    ],
    pairs,
  );
  const ofClient = client === undefined ? sql`` : sql` AND e.client = ${client}`;
  return db.all(sql`SELECT e.identity, e.server, e.ts, e.event_id AS "eventId", e.bucket, e.kind, e.rule,
      e.rpc_method AS method
    FROM ${table} AS t JOIN events e ON e.identity = t.identity AND e.ts = t.ts
    WHERE e.identity IS NOT NULL AND e.counted = 1${ofClient}`);
}

/**
 * The hours in [fromHour, toHour) in which an identity was sent at least `minSends` times, each with the identity's
 * sends in the hours either side. One seek an hour in the partial index: a range over the hours reads every re-sent
 * identity of the window. SQLite seeks on the first of the two bounds on `sends`, so `minSends` comes first (the
 * other way round, it reads an hour's ~100k re-sent identities at 10M events a day to find its ~300 seeds).
 */
export async function seedHours(
  db: SqlRunner,
  { fromHour, toHour, server }: { fromHour: number; toHour: number; server?: string },
  minSends: number,
): Promise<SeedHour[]> {
  const ofServer = server === undefined ? sql`` : sql` AND ${serverPrefix(server)}`;
  const hours: SQL[] = [];
  for (let start = fromHour; start < toHour; start += HOUR_MS) {
    hours.push(sql`SELECT start, identity, sends FROM identity_hour
      WHERE start = ${start} AND sends >= ${minSends} AND sends > 1${ofServer}`);
  }
  return allOfUnion<SeedHour>(
    db,
    hours,
    (union) => sql`SELECT s.identity, s.start, s.sends, coalesce(p.sends, 0) AS prev, coalesce(n.sends, 0) AS next
    FROM (${union}) AS s
    LEFT JOIN identity_hour p ON p.start = s.start - ${HOUR_MS} AND p.identity = s.identity
    LEFT JOIN identity_hour n ON n.start = s.start + ${HOUR_MS} AND n.identity = s.identity`,
  );
}

/**
 * The identities that, within their spans (`[identity, from, to]`), were sent at least `minSends` times in some clock
 * bucket of `bucketMs`: counted in the identity index, so that no send is read out.
 */
export async function busyIdentities(
  db: SqlRunner,
  spans: readonly (readonly [string, number, number])[],
  bucketMs: number,
  minSends: number,
): Promise<string[]> {
  if (spans.length === 0) return [];
  const table = rowsTable(
    db,
    [
      ['identity', 'text'],
      ['span_from', 'bigint'],
      ['span_to', 'bigint'],
    ],
    spans,
  );
  const rows = await db.all<{ identity: string }>(sql`SELECT DISTINCT identity FROM (
      SELECT e.identity, e.ts - e.ts % ${bucketMs} AS bucket FROM ${table} AS s
      JOIN events e ON e.identity = s.identity AND e.ts >= s.span_from AND e.ts < s.span_to
      WHERE e.identity IS NOT NULL AND e.counted = 1
      GROUP BY 1, 2 HAVING count(*) >= ${minSends}) AS busy`);
  return rows.map((row) => row.identity);
}

/**
 * An identity names its server first (DOMAIN.md section 5). Compared with `=` rather than a range or LIKE, which
 * depend on the collation; substr counts characters on both stores, as the spread string does.
 */
function serverPrefix(server: string, column: SQL = sql`identity`): SQL {
  const prefix = `${server}:`;
  return sql`substr(${column}, 1, ${[...prefix].length}) = ${prefix}`;
}
