import { type SQL, sql } from 'drizzle-orm';
import type { SeedHour } from '../../shared/analysis/alarm-candidates.ts';
import type { HourSends, IdentitySends, ListDepth } from '../../shared/analysis/identity-ranking.ts';
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
 * Each hour's most sent identities (sent more than once) in [fromHour, toHour), `depthOf(hour)` of them, optionally
 * of one server; each hour's list read from the partial index on (start, sends), so its cost is the list, not the
 * hour. Ties go by identity backwards, the order the index holds them in (forwards, SQLite sorts every list).
 */
export async function hourlyTopIdentities(
  db: SqlRunner,
  { fromHour, toHour, server }: { fromHour: number; toHour: number; server?: string },
  depthOf: ListDepth,
): Promise<HourSends[]> {
  const ofServer = server === undefined ? sql`` : sql` AND ${serverPrefix(server)}`;
  const lists: SQL[] = [];
  for (let start = fromHour; start < toHour; start += HOUR_MS) {
    lists.push(sql`SELECT * FROM (SELECT start, identity, sends FROM identity_hour
      WHERE start = ${start} AND sends > 1${ofServer}
      ORDER BY sends DESC, identity DESC LIMIT ${depthOf(start)}) AS h`);
  }
  return allOfUnion<HourSends>(db, lists, (union) => union);
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
