import { type SQL, sql } from 'drizzle-orm';
import { SLOTS_PER_HOUR, type SlotHour, slotOf } from '../../shared/analysis/alarm-candidates.ts';
import type {
  HourCap,
  HourSends,
  IdentitySends,
  ListDepth,
  ListedContender,
} from '../../shared/analysis/identity-ranking.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { coldSends, coldSendsAt } from '../queries/cold-sends.ts';
import { addingUpsert, allOfUnion, listTable, type RowsColumn, rowsTable, upsertRows } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import { identityPairs, identityPairsPerServer, identityRows, identityText, storedDigest } from '../stored-identity.ts';

/**
 * A change to the counted sends of one identity (of a request to `server`) in the hour that holds `ts`. Identities
 * are public strings here, as outside db/; the table keys them by (server, digest) (db/stored-identity.ts).
 */
/**
 * The rows that are sends of an identity, `e` being events: counted records with an identity, less the MRTR rounds
 * that answer an input request (continuations: part of their call, never a re-presentation, DOMAIN.md section 10).
 * Its first two terms are events_identity_server_ts_idx's condition, and the flag is in that index.
 */
const SENDS = sql`e.identity IS NOT NULL AND e.counted = 1 AND e.continuation = 0`;

/*
 * The other sends: MCP 2026-07-28's input requests (db/schema/input-requests.ts), what a server asked inside a counted
 * round's answer, each a send of its own identity as a 2025 server's sampling request is (DOMAIN.md section 10). Every
 * read below adds them from their table (`i`), by its index (identity, server, ts); the hour counts hold both.
 */

export interface IdentityDelta {
  ts: number;
  server: string;
  identity: string;
  sends: number;
}

/** The columns of an hour's sends per slot, in clock order. */
const SLOT_COLUMNS = Array.from({ length: SLOTS_PER_HOUR }, (_, slot) => `sends_${slot}0`);
const SLOTS_OF_IH = sql.raw(SLOT_COLUMNS.map((column) => `ih.${column}`).join(', '));

/**
 * The contenders' rows of part-hours with their slots, after the contenders' summed rows: `UNION ALL` and a SELECT,
 * or nothing. The lists read the partial index (start, sends) alone: SQLite's holds the key, being of a WITHOUT ROWID
 * table; PostgreSQL's carries the server and digest (migration identity_lists_covered), where fetching each list
 * row's tuple was most of a day's ranking (docs/adr/0022-reads-at-scale.md). In a whole hour every send is in the
 * window. SQLite looks the slots up by the key for the contenders' part-hour rows alone: taken into the lists, they
 * cost a lookup of each of a day's ~40k list rows (its ranking 45 -> 94 ms). PostgreSQL reads the (at most two)
 * part-hours' lists again, fetching the contenders' tuples: a lookup by the key descends the primary key too, ~4
 * buffers a row against 1, and with `lists` read once it is not materialised (the statement choosing a day's
 * contenders 33 -> 21 ms, an hour's 17 -> 16).
 */
function partHourRows(db: SqlRunner, hours: readonly HourCap[], ofServer: SQL): SQL {
  const contender = (alias: string) =>
    sql.raw(`(${alias}.server, ${alias}.identity) IN (SELECT server, identity FROM contenders)`);
  if (db.dialect === 'sqlite') {
    return sql` UNION ALL SELECT ${identityText(db, 'lists')} AS identity, lists.start, lists.sends, 0, 0, ${SLOTS_OF_IH}
      FROM lists JOIN identity_hour ih ON ih.start = lists.start AND ih.server = lists.server
        AND ih.identity = lists.identity
      WHERE lists.whole = 0 AND ${contender('lists')}`;
  }
  const legs = hours
    .filter(({ whole }) => !whole)
    .map(
      (hour) => sql` UNION ALL SELECT ${identityText(db, 'ih')} AS identity, ${hour.start}::bigint, ih.sends, 0, 0,
        ${SLOTS_OF_IH} FROM identity_hour ih WHERE ${listed(hour, ofServer)} AND ${contender('ih')}`,
    );
  return sql.join(legs);
}

/** The rows of identity_hour `ih` on the hour's list: above its cap, and re-sent (the partial index's condition). */
function listed({ start, cap }: HourCap, ofServer: SQL): SQL {
  return sql`ih.start = ${start} AND ih.sends > ${cap} AND ih.sends > 1${ofServer}`;
}

/** No slots: the columns of a contender's summed whole hours, beside its rows of part-hours. */
const NO_SLOTS = sql.raw(SLOT_COLUMNS.map((column) => `0 AS ${column}`).join(', '));

const IDENTITY_HOUR_KEYS: readonly RowsColumn[] = [
  ['start', 'bigint'],
  ['server', 'text'],
  ['identity', 'bytea'],
];
/** A row's counts before any delta: its sends, then its sends per slot. */
const NO_SENDS: readonly number[] = [0, ...SLOT_COLUMNS.map(() => 0)];
const IDENTITY_HOUR_UPSERT = addingUpsert('identity_hour', IDENTITY_HOUR_KEYS, ['sends', ...SLOT_COLUMNS]);

/**
 * Adds the deltas to the sends of their identity and hour, and of its slot: summed per row first, each row built
 * once (a fold hands one delta per send), then written as addCounts writes, in key order, rows summing to 0 left out.
 */
export async function applyIdentityDeltas(db: SqlRunner, deltas: readonly IdentityDelta[]): Promise<void> {
  const rows = new Map<string, (string | number)[]>();
  for (const { ts, server, identity, sends } of deltas) {
    const start = ts - (ts % HOUR_MS);
    const digest = storedDigest(identity, server);
    // addCounts' key: the key's values joined by NUL, which names never hold.
    const id = `${start}\u0000${server}\u0000${digest}`;
    let row = rows.get(id);
    if (row === undefined) {
      row = [start, server, digest, ...NO_SENDS];
      rows.set(id, row);
    }
    row[3] = (row[3] as number) + sends;
    const slot = 4 + slotOf(ts);
    row[slot] = (row[slot] as number) + sends;
  }
  const changed: (string | number)[][] = [];
  for (const id of [...rows.keys()].sort()) {
    const row = rows.get(id) as (string | number)[];
    if (row.some((value, i) => i >= IDENTITY_HOUR_KEYS.length && value !== 0)) changed.push(row);
  }
  await upsertRows(db, IDENTITY_HOUR_UPSERT, changed);
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
  const ofServer = server === undefined ? sql`` : sql` AND server = ${server}`;
  const cuts: SQL[] = [];
  for (let start = fromHour; start < toHour; start += HOUR_MS) {
    cuts.push(sql`SELECT * FROM (SELECT start, sends FROM identity_hour WHERE start = ${start} AND sends > 1${ofServer}
      ORDER BY sends DESC LIMIT 1 OFFSET ${depthOf(start) - 1}) AS c`);
  }
  const rows = await allOfUnion<{ start: number; sends: number }>(db, cuts, (union) => union);
  return new Map(rows.map((row) => [row.start, row.sends]));
}

/**
 * The identities that can be among the `n` most sent of the window, from the list rows (each hour's identities sent
 * more than its cap): those whose most, `unlisted` plus what their lists hold over the caps, reaches the `n`-th
 * largest sends listed in whole hours (at least 2). Grouped in the store: a day's lists are ~40k rows, and making
 * them JavaScript strings cost more than the reading and grouping. Each contender's rows of whole hours come summed,
 * one row (`start` null); its rows of part-hours each with its slots.
 */
export async function listContenders(
  db: SqlRunner,
  hours: readonly HourCap[],
  { server, n, unlisted }: { server?: string; n: number; unlisted: number },
): Promise<ListedContender[]> {
  if (n <= 0 || hours.length === 0) return [];
  const ofServer = server === undefined ? sql`` : sql` AND ih.server = ${server}`;
  const rows = await db.all<
    { identity: string; start: number | null; sends: number; hours: number; over: number } & Record<
      (typeof SLOT_COLUMNS)[number],
      number
    >
  >(sql`WITH ${hourLists(db, hours, ofServer)},
    grouped AS (
      SELECT server, identity, sum(whole * sends) AS listed, sum(whole) AS hours, sum(whole * (sends - cap)) AS over,
        sum(sends - cap) AS excess
      FROM lists GROUP BY server, identity),
    contenders AS (
      SELECT server, identity, listed, hours, over FROM grouped WHERE ${unlisted} + excess >= 2
        AND ${unlisted} + excess >= coalesce((SELECT listed FROM grouped ORDER BY listed DESC LIMIT 1 OFFSET ${n - 1}), 0))
    SELECT ${identityText(db, 'c')} AS identity, NULL AS start, c.listed AS sends, c.hours, c.over, ${NO_SLOTS}
    FROM contenders AS c${partHourRows(db, hours, ofServer)}`);
  const contenders = new Map<string, ListedContender & { parts: HourSends[] }>();
  for (const row of rows) {
    if (row.start !== null) continue;
    const { identity } = row;
    contenders.set(identity, {
      identity,
      listed: Number(row.sends),
      listedHours: Number(row.hours),
      overCaps: Number(row.over),
      parts: [],
    });
  }
  for (const row of rows) {
    if (row.start === null) continue;
    contenders.get(row.identity)?.parts.push({
      identity: row.identity,
      start: Number(row.start),
      sends: Number(row.sends),
      slots: SLOT_COLUMNS.map((column) => Number(row[column])),
    });
  }
  return [...contenders.values()];
}

/**
 * `lists`: each hour's rows of identity_hour above the hour's cap, with the cap and whether the hour is whole. SQLite
 * seeks the partial index (start, sends) on the first bound of sends, the cap, for each hour of the joined list. The
 * hours are materialised first, or each of a day's ~40k list rows read its hour's cap and wholeness out of JSON again
 * (the statement choosing a day's contenders from ~37k list rows: CPU 45 -> 22 ms), and lead the join (CROSS JOIN):
 * knowing nothing of them, SQLite read one server's part-hour rows by scanning the whole index (1 -> 33 ms).
 * PostgreSQL, which cannot see the caps of a table function, planned that join as a scan of the whole month's
 * partition (230 ms for an hour's ranking at 2M events, growing with the month): a leg per hour names its start and
 * cap, and each is a range of the index.
 */
function hourLists(db: SqlRunner, hours: readonly HourCap[], ofServer: SQL): SQL {
  if (db.dialect === 'postgres') {
    const legs = hours.map(
      (hour) => sql`SELECT ih.server, ih.identity, ${hour.start}::bigint AS start, ih.sends,
        ${hour.cap}::integer AS cap, ${hour.whole ? 1 : 0}::integer AS whole FROM identity_hour ih
        WHERE ${listed(hour, ofServer)}`,
    );
    return sql`lists AS (${sql.join(legs, sql` UNION ALL `)})`;
  }
  const table = rowsTable(
    db,
    [
      ['start', 'bigint'],
      ['cap', 'integer'],
      ['whole', 'integer'],
    ],
    hours.map(({ start, cap, whole }) => [start, cap, whole ? 1 : 0]),
  );
  return sql`hours AS MATERIALIZED ${table},
    lists AS (SELECT ih.server, ih.identity, h.start, ih.sends, h.cap, h.whole FROM hours AS h
      CROSS JOIN identity_hour ih ON ih.start = h.start AND ih.sends > h.cap AND ih.sends > 1${ofServer})`;
}

/**
 * Counted sends of each of `identities` over the hours starting at `hours`, from the hour counts. Every identity in
 * every hour is one probe of the primary key (start, server, identity); as lists of hours and of (server, identity)
 * pairs, SQLite walks their product in the key instead of decoding a JSON triple per probe (a day's 1,800
 * contenders: 266 -> 71 ms).
 */
export async function identityHourSends(
  db: SqlRunner,
  identities: readonly string[],
  hours: readonly number[],
): Promise<IdentitySends[]> {
  const pairs = hours.length === 0 ? null : identityPairs(db, identities);
  if (pairs === null) return [];
  return db.all(sql`SELECT ${identityText(db, 'ih')} AS identity, sum(ih.sends) AS sends FROM identity_hour AS ih
    WHERE ih.start IN ${listTable(db, hours)}
      AND (ih.server, ih.identity) IN (SELECT server, identity FROM ${pairs} AS p)
    GROUP BY ih.server, ih.identity`);
}

/**
 * Counted sends of each of `identities` over [from, to) from the events: the part-hours at a window's edges. Counted
 * per identity, each one seek and a run of the identity index: grouping the matches of a list needed a sort.
 */
export async function identityEventSends(
  db: SqlRunner,
  identities: readonly string[],
  { from, to }: { from: number; to: number },
): Promise<IdentitySends[]> {
  const pairs = from >= to ? null : identityPairs(db, identities);
  if (pairs === null) return [];
  // On PostgreSQL a leg per server, naming it: Citus refuses the counts correlated with a table function otherwise.
  const counted = (table: SQL, server: SQL) => sql`SELECT p.place AS place,
      (SELECT count(*) FROM events AS e WHERE e.identity = p.identity AND e.server = ${server}
        AND ${SENDS} AND e.ts >= ${from} AND e.ts < ${to})
      + (SELECT count(*) FROM input_requests AS i WHERE i.identity = p.identity AND i.server = ${server}
        AND i.ts >= ${from} AND i.ts < ${to}) AS sends
    FROM ${table} AS p`;
  const [rows, cold] = await Promise.all([
    db.dialect === 'sqlite'
      ? db.all<{ place: number; sends: number }>(counted(pairs, sql`p.server`))
      : allOfUnion<{ place: number; sends: number }>(
          db,
          identityPairsPerServer(db, identities).map(({ server, table }) => counted(table, sql`${server}`)),
          (union) => union,
        ),
    coldSends(db, identities, { from, to }),
  ]);
  const sends = new Map<string, number>();
  for (const { place, sends: n } of rows) sends.set(identities[place] as string, Number(n));
  for (const { identity } of cold) if (identity !== null) sends.set(identity, (sends.get(identity) ?? 0) + 1);
  return [...sends].map(([identity, n]) => ({ identity, sends: n }));
}

/**
 * The times of the counted sends of each of `identities` in a window, in order, by identity (those sent in it):
 * read from the identity index alone, no event row (a client filter needs the rows). A server filter is applied to
 * the identities, which name their server: as a condition on the rows, it could lead SQLite to the server's index.
 */
export async function sendTimes(
  db: SqlRunner,
  identities: readonly string[],
  { from, to, server, client }: { from: number; to: number; server?: string; client?: string },
): Promise<Map<string, number[]>> {
  const times = new Map<string, number[]>();
  const pairs = identityPairs(db, identities, server);
  if (pairs === null) return times;
  const ofClient = client === undefined ? sql`` : sql` AND e.client = ${client}`;
  // Rows name their identity by its place in `identities`: a loop sent 4 times a second has 345k sends a day, and a
  // string built for each cost half again the read. Materialised, the identities get an index of their own when a
  // client's rows are read first. No ORDER BY: SQLite walks the index one identity after another, each one's times
  // in order, where sorting them took a temporary B-tree; times out of order (another plan, another engine) are
  // sorted here.
  const sends = sql`${SENDS} AND e.ts >= ${from} AND e.ts < ${to}${ofClient}`;
  // PostgreSQL joined the pairs to the day partitions by scanning each whole (0.7 s for a day of 200k events): as a
  // lateral subquery, each identity is one seek per partition. OFFSET 0 keeps the planner from flattening it back
  // into that join; a leg per server keeps Citus from refusing it.
  type Time = { place: number; ts: number };
  const query =
    db.dialect === 'postgres'
      ? allOfUnion<Time>(
          db,
          identityPairsPerServer(db, identities, server).map(
            (one) => sql`SELECT p.place AS place, e.ts AS ts FROM ${one.table} AS p CROSS JOIN LATERAL
              (SELECT e.ts FROM events AS e WHERE e.identity = p.identity AND e.server = ${one.server} AND ${sends}
              OFFSET 0) AS e`,
          ),
          (union) => union,
        )
      : db.all<Time>(sql`WITH p AS MATERIALIZED (SELECT * FROM ${pairs} AS pairs)
          SELECT p.place AS place, e.ts AS ts FROM p JOIN events AS e ON e.identity = p.identity AND e.server = p.server
          WHERE ${sends}`);
  const ofAsked = client === undefined ? sql`` : sql` AND i.client = ${client}`;
  const asked = sql`SELECT p.place AS place, i.ts AS ts FROM ${pairs} AS p JOIN input_requests AS i
    ON i.identity = p.identity AND i.server = p.server WHERE i.ts >= ${from} AND i.ts < ${to}${ofAsked}`;
  const [hot, inputs, cold] = await Promise.all([
    query,
    db.all<Time>(asked),
    coldSends(db, identities, { from, to, server, client }),
  ]);
  const disordered = new Set<number[]>();
  const add = (identity: string, time: number) => {
    const list = times.get(identity);
    if (list === undefined) times.set(identity, [time]);
    else {
      if (time < (list.at(-1) as number)) disordered.add(list);
      list.push(time);
    }
  };
  for (const { place, ts } of [...hot, ...inputs]) add(identities[place] as string, Number(ts));
  for (const { identity, ts } of cold) if (identity !== null) add(identity, ts);
  for (const list of disordered) list.sort((a, b) => a - b);
  return times;
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
  const table = identityRows(db, pairs, [['ts', 'bigint']]);
  if (table === null) return [];
  const ofClient = client === undefined ? sql`` : sql` AND e.client = ${client}`;
  const ofAsked = client === undefined ? sql`` : sql` AND i.client = ${client}`;
  // An input request's send is the round that asked: its event, with the method the server asked by.
  const cold = (await coldSendsAt(db, pairs, client)).map(
    ({ identity, server, ts, eventId, bucket, kind, rule, rpcMethod }): LatestSendRow => ({
      identity: identity as string,
      server,
      ts,
      eventId,
      bucket,
      kind,
      rule,
      method: rpcMethod,
    }),
  );
  const hot =
    await db.all<LatestSendRow>(sql`SELECT ${identityText(db, 'e')} AS identity, e.server, e.ts, e.event_id AS "eventId", e.bucket,
      e.kind, e.rule, e.rpc_method AS method
    FROM ${table} AS t JOIN events e ON e.identity = t.identity AND e.server = t.server AND e.ts = t.ts
    WHERE ${SENDS}${ofClient}
    UNION ALL
    SELECT ${identityText(db, 'i')} AS identity, i.server, i.ts, i.event_id AS "eventId", e.bucket, e.kind, e.rule,
      i.method AS method
    FROM ${table} AS t JOIN input_requests i ON i.identity = t.identity AND i.server = t.server AND i.ts = t.ts
    JOIN events e ON e.event_id = i.event_id AND e.ts = i.ts AND e.server = i.server
    WHERE 1 = 1${ofAsked}`);
  return [...hot, ...cold];
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
  const ofServer = server === undefined ? sql`` : sql` AND server = ${server}`;
  const slots = sql.raw(SLOT_COLUMNS.join(', '));
  const busy = sql.join(
    SLOT_COLUMNS.map((column) => sql`${sql.identifier(column)} >= ${minSends}`),
    sql` OR `,
  );
  const hours: SQL[] = [];
  for (let start = fromHour; start < toHour; start += HOUR_MS) {
    hours.push(sql`SELECT start, ${identityText(db)} AS identity, ${slots} FROM identity_hour
      WHERE start = ${start} AND sends >= ${minSends} AND sends > 1${ofServer} AND (${busy})`);
  }
  const rows = await allOfUnion<Record<string, number | string>>(db, hours, (union) => union);
  return rows.map((row) => ({
    identity: row.identity as string,
    start: Number(row.start),
    slots: SLOT_COLUMNS.map((column) => Number(row[column])),
  }));
}
