import { type SQL, sql } from 'drizzle-orm';
import { SLOTS_PER_HOUR, type SlotHour, slotOf } from '../../shared/analysis/alarm-candidates.ts';
import type { HourCap, HourSends, IdentitySends, ListDepth } from '../../shared/analysis/identity-ranking.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { addCounts, allOfUnion, listTable, rowsTable } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';

/** A change to the counted sends of one identity in the hour that holds `ts`. */
export interface IdentityDelta {
  ts: number;
  identity: string;
  sends: number;
}

/** The columns of an hour's sends per slot, in clock order. */
const SLOT_COLUMNS = Array.from({ length: SLOTS_PER_HOUR }, (_, slot) => `sends_${slot}0`);

/** Adds the deltas to the sends of their identity and hour, and of its slot. */
export async function applyIdentityDeltas(db: SqlRunner, deltas: readonly IdentityDelta[]): Promise<void> {
  await addCounts(
    db,
    'identity_hour',
    [
      ['start', 'bigint'],
      ['identity', 'text'],
    ],
    ['sends', ...SLOT_COLUMNS],
    deltas.map(({ ts, identity, sends }) => {
      const slots = SLOT_COLUMNS.map(() => 0);
      slots[slotOf(ts)] = sends;
      return [ts - (ts % HOUR_MS), identity, sends, ...slots];
    }),
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
 * Counted sends of each of `identities` over the hours starting at `hours`, from the hour counts. Every identity in
 * every hour is one probe of the primary key (start, identity); as lists of both, SQLite walks their product in
 * the key instead of decoding a JSON pair per probe (a day's 1,800 contenders: 266 -> 71 ms).
 */
export async function identityHourSends(
  db: SqlRunner,
  identities: readonly string[],
  hours: readonly number[],
): Promise<IdentitySends[]> {
  if (identities.length === 0 || hours.length === 0) return [];
  return db.all(sql`SELECT identity, sum(sends) AS sends FROM identity_hour
    WHERE start IN ${listTable(db, hours)} AND identity IN ${listTable(db, identities)}
    GROUP BY identity`);
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
 * The hours in [fromHour, toHour) with a slot in which an identity was sent at least `minSends` times, with its sends
 * per slot. One seek an hour in the partial index, `minSends` its first bound on `sends`: SQLite seeks on the first
 * of two bounds, and with `sends > 1` first it read each hour's ~100k re-sent identities (at 10M events a day) to
 * find the few hundred sent that often.
 */
export async function busySlotHours(
  db: SqlRunner,
  { fromHour, toHour, server }: { fromHour: number; toHour: number; server?: string },
  minSends: number,
): Promise<SlotHour[]> {
  const ofServer = server === undefined ? sql`` : sql` AND ${serverPrefix(server)}`;
  const slots = sql.raw(SLOT_COLUMNS.join(', '));
  const busy = sql.join(
    SLOT_COLUMNS.map((column) => sql`${sql.identifier(column)} >= ${minSends}`),
    sql` OR `,
  );
  const hours: SQL[] = [];
  for (let start = fromHour; start < toHour; start += HOUR_MS) {
    hours.push(sql`SELECT start, identity, ${slots} FROM identity_hour
      WHERE start = ${start} AND sends >= ${minSends} AND sends > 1${ofServer} AND (${busy})`);
  }
  const rows = await allOfUnion<Record<string, number | string>>(db, hours, (union) => union);
  return rows.map((row) => ({
    identity: row.identity as string,
    start: Number(row.start),
    slots: SLOT_COLUMNS.map((column) => Number(row[column])),
  }));
}

/**
 * An identity names its server first (DOMAIN.md section 5). Compared with `=` rather than a range or LIKE, which
 * depend on the collation; substr counts characters on both stores, as the spread string does.
 */
function serverPrefix(server: string, column: SQL = sql`identity`): SQL {
  const prefix = `${server}:`;
  return sql`substr(${column}, 1, ${[...prefix].length}) = ${prefix}`;
}
