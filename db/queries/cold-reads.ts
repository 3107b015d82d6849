import { type SQL, sql } from 'drizzle-orm';
import { bucketStart, HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { type Cell, unpackColumns } from '../../shared/column-block.ts';
import { JOIN_MAX_SPAN_MS, JOIN_SKEW_MS } from '../../shared/request-join.ts';
import { EVENT_FIELDS } from '../cold-block.ts';
import type { EventColumns } from '../event-row.ts';
import type { SqlRunner } from '../runner.ts';
import { type ColdRange, rangeConditions, unpackColdEvents } from './cold-events.ts';
import {
  type ListedFields,
  newestFirst,
  pairKey,
  type StoredEventRow,
  UNLISTED_COLUMNS,
  whereClause,
} from './events.ts';
import { rowsTable } from './lists.ts';

/**
 * The single events an operator drills into, read from cold blocks (docs/adr/0021-cold-events-in-blocks.md, "Who
 * reads single events in cold time"): a list's next events, its count, an event by id, a record's partner, the
 * stored span. A block is read in two steps: the few columns a test needs (times, arrival, names, verdicts: small
 * dictionaries and deltas), then, only for a block holding an event the read returns, the columns the list and the
 * view show (not UNLISTED_COLUMNS) and the lines, which are most of its bytes.
 */

/** A block before its data is read: where its events are, and the times of its first and last. */
interface BlockPlace {
  server: string;
  hour: number;
  firstSeq: number;
  firstTs: number;
  lastTs: number;
}

/** Block places per statement while a read walks the hours newest first: a few hours of a fleet of servers. */
const PLACES_PER_READ = 64;

/** The columns a list's filter and order test (ListedFields) but the time, inflated before a block is read whole. */
const TESTED_BESIDE_TIME = ['seq', 'server', 'client', 'bucket', 'kind', 'actProfile', 'counted'] as const;

/**
 * Blocks read at most, newest first, for an event asked for by id alone: no index maps an id to its block (it would
 * cost ~15 B an event against ADR 21's 100 B). A block's ids alone are inflated, ~1.7 ms for 4,096 of them (the
 * whole block: ~25 ms), so a search without hints costs ~0.1 s of inflating and the reading of its blocks.
 */
export const ID_SCAN_BLOCKS = 64;

/** The blocks of the range (cold-events.ts rangeConditions), those before an hour or of one hour. */
function blockConditions(range: ColdRange, hour?: { below?: number; at?: number }): SQL[] {
  const conditions = rangeConditions(range);
  if (hour?.below !== undefined) conditions.push(sql`hour < ${hour.below}`);
  if (hour?.at !== undefined) conditions.push(sql`hour = ${hour.at}`);
  return conditions;
}

async function placesWhere(db: SqlRunner, conditions: SQL[], limit?: number): Promise<BlockPlace[]> {
  const rows = await db.all<{
    server: string;
    hour: number | string;
    firstSeq: number | string;
    firstTs: number | string;
    lastTs: number | string;
  }>(sql`SELECT server, hour, first_seq AS "firstSeq", first_ts AS "firstTs", last_ts AS "lastTs" FROM cold_blocks
    ${whereClause(conditions)} ORDER BY hour DESC, server, first_seq DESC
    ${limit === undefined ? sql`` : sql`LIMIT ${limit}`}`);
  return rows.map((row) => ({
    server: row.server,
    hour: Number(row.hour),
    firstSeq: Number(row.firstSeq),
    firstTs: Number(row.firstTs),
    lastTs: Number(row.lastTs),
  }));
}

/**
 * The places of the range's blocks an hour at a time, newest hour first: every event of an hour is newer than every
 * event of the hours after it, so a reader that has enough after an hour stops there without reading further.
 */
async function* hoursOfBlocks(db: SqlRunner, range: ColdRange): AsyncGenerator<BlockPlace[]> {
  let below: number | undefined;
  for (;;) {
    const places = await placesWhere(db, blockConditions(range, { below }), PLACES_PER_READ);
    const last = places.at(-1);
    if (last === undefined) return;
    const hours = byHour(places);
    // A full read may have stopped inside its last hour: that hour is read again whole.
    if (places.length === PLACES_PER_READ) {
      hours.pop();
      hours.push(await placesWhere(db, blockConditions(range, { at: last.hour })));
    }
    yield* hours;
    below = last.hour;
  }
}

function byHour(places: readonly BlockPlace[]): BlockPlace[][] {
  const hours: BlockPlace[][] = [];
  for (const place of places) {
    const current = hours.at(-1);
    if (current?.[0]?.hour === place.hour) current.push(place);
    else hours.push([place]);
  }
  return hours;
}

/**
 * Blocks read per statement: a block is up to ~400 KB (4,096 events at ADR 21's ~100 B), and an hour of a fleet has a
 * block per server, which a read need not hold all at once.
 */
const BLOCKS_PER_STATEMENT = 8;

/** A block's place and data, as read. */
interface ReadBlock {
  place: BlockPlace;
  data: Uint8Array;
}

/**
 * Blocks read by this process: what the tests hold the list's reads to (a page reads the blocks that can hold its
 * events, not every block of their hours).
 */
export const coldBlockReads = { blocks: 0 };

/** These blocks, in their order, BLOCKS_PER_STATEMENT at a time (a block gone since its place was read is left out). */
async function* blocksOf(db: SqlRunner, places: readonly BlockPlace[]): AsyncGenerator<ReadBlock> {
  for (let i = 0; i < places.length; i += BLOCKS_PER_STATEMENT) {
    yield* await blockData(db, places.slice(i, i + BLOCKS_PER_STATEMENT));
  }
}

/** These blocks, in their order, in one statement. */
async function blockData(db: SqlRunner, places: readonly BlockPlace[]): Promise<ReadBlock[]> {
  if (places.length === 0) return [];
  const wanted = rowsTable(
    db,
    [
      ['server', 'text'],
      ['hour', 'bigint'],
      ['first_seq', 'bigint'],
    ],
    places.map((place) => [place.server, place.hour, place.firstSeq]),
  );
  const rows = await db.all<{ server: string; hour: number | string; firstSeq: number | string; data: Uint8Array }>(
    sql`SELECT b.server AS server, b.hour AS hour, b.first_seq AS "firstSeq", b.data AS data FROM cold_blocks AS b
      JOIN ${wanted} AS wanted ON b.server = wanted.server AND b.hour = wanted.hour AND b.first_seq = wanted.first_seq`,
  );
  const data = new Map(rows.map((row) => [placeKey(row.server, Number(row.hour), Number(row.firstSeq)), row.data]));
  coldBlockReads.blocks += rows.length;
  return places.flatMap((place) => {
    const found = data.get(placeKey(place.server, place.hour, place.firstSeq));
    return found === undefined ? [] : [{ place, data: found }];
  });
}

function placeKey(server: string, hour: number, firstSeq: number): string {
  return JSON.stringify([server, hour, firstSeq]);
}

/** For a look-up that widens its search step by step: of the places of a step, those no step before has read. */
function unreadOnce(): (places: readonly BlockPlace[]) => BlockPlace[] {
  const read = new Set<string>();
  return (places) =>
    places.filter((place) => {
      const key = placeKey(place.server, place.hour, place.firstSeq);
      if (read.has(key)) return false;
      read.add(key);
      return true;
    });
}

/** Some columns of a block (of some of its rows), row by row, under their EventColumns names. */
function columnsOf<Field extends string>(
  data: Uint8Array,
  fields: readonly Field[],
  only?: readonly number[],
): Record<Field, Cell>[] {
  const { columns, rowCount, values } = unpackColumns(data, fields, only);
  const rows = Array.from({ length: rowCount }, () => ({}) as Record<Field, Cell>);
  for (const field of fields) {
    const column = values[columns.findIndex((spec) => spec.name === field)];
    for (let r = 0; r < rowCount; r++) (rows[r] as Record<Field, Cell>)[field] = column?.[r] ?? null;
  }
  return rows;
}

/** An event a read keeps, before its block is read whole: the block's data and its row in it. */
interface Hit {
  data: Uint8Array;
  row: number;
  ts: number;
  seq: number;
}

/**
 * The hits' events, and `withPartners` the records of their partners in the same blocks (a client's record and its
 * proxy's are moments apart on one server): each block is inflated once, in the columns the list shows, and only
 * those rows of it are made events.
 */
function eventsOf(
  hits: readonly Hit[],
  withPartners: boolean,
): { events: StoredEventRow[]; inflated: StoredEventRow[] } {
  const byBlock = new Map<Uint8Array, number[]>();
  for (const hit of hits) byBlock.set(hit.data, [...(byBlock.get(hit.data) ?? []), hit.row]);
  const events = new Map<Hit, StoredEventRow>();
  const partners: StoredEventRow[] = [];
  for (const [data, hitRows] of byBlock) {
    const near = withPartners ? partnerRows(data, hitRows) : [];
    const rows = [...new Set([...hitRows, ...near])].sort((a, b) => a - b);
    const read = new Map(listedEventsOf(data, rows).map((event, i) => [rows[i] as number, event]));
    for (const hit of hits) if (hit.data === data) events.set(hit, read.get(hit.row) as StoredEventRow);
    for (const row of rows) if (!hitRows.includes(row)) partners.push(read.get(row) as StoredEventRow);
  }
  return { events: hits.map((hit) => events.get(hit) as StoredEventRow), inflated: partners };
}

/** The fields the list and the view show: a block read for them inflates no other column. */
const LISTED_FIELDS: readonly (keyof StoredEventRow)[] = [...EVENT_FIELDS.filter(isListed), 'body'];

function isListed(field: keyof EventColumns): field is Exclude<keyof EventColumns, (typeof UNLISTED_COLUMNS)[number]> {
  return !(UNLISTED_COLUMNS as readonly string[]).includes(field);
}

/** Rows of a block as the list and the view show them. */
function listedEventsOf(data: Uint8Array, rows: readonly number[]): StoredEventRow[] {
  return unpackColdEvents(data, rows, LISTED_FIELDS);
}

/** The rows of a block that name one of `rows` back as its partner, where one of those names a partner at all. */
function partnerRows(data: Uint8Array, rows: readonly number[]): number[] {
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const named = columnsOf(data, ['partner'] as const, sorted);
  if (named.every((row) => row.partner === null)) return [];
  const ids = columnsOf(data, ['eventId', 'partner'] as const);
  const wanted = new Set(
    sorted.flatMap((row) => {
      const named = ids[row];
      return named?.partner == null ? [] : [pairKey(String(named.partner), String(named.eventId))];
    }),
  );
  return ids.flatMap((row, r) =>
    row.partner !== null && wanted.has(pairKey(String(row.eventId), String(row.partner))) ? [r] : [],
  );
}

/**
 * The events of a block that pass `matches`, by their tested columns alone, of the rows of the range not older than
 * `since`: the times are read first, and the other tested columns only for those rows (a page after a cursor keeps a
 * few rows of each block it reads, and the events made of the rest were most of the test).
 */
function hitsIn(
  data: Uint8Array,
  range: ColdRange,
  since: number | null,
  matches: (event: ListedFields) => boolean,
): Hit[] {
  const { values } = unpackColumns(data, ['ts']);
  const times = (values[0] ?? []) as number[];
  const from = Math.max(range.from ?? Number.NEGATIVE_INFINITY, since ?? Number.NEGATIVE_INFINITY);
  const to = range.to ?? Number.POSITIVE_INFINITY;
  const rows: number[] = [];
  for (let row = 0; row < times.length; row++) {
    const ts = times[row] as number;
    if (ts >= from && ts < to) rows.push(row);
  }
  if (rows.length === 0) return [];
  // Every row in reach (a count, a page's first block): read whole, not picked one by one.
  const tested = columnsOf(data, TESTED_BESIDE_TIME, rows.length === times.length ? undefined : rows);
  const hits: Hit[] = [];
  tested.forEach((columns, i) => {
    const row = rows[i] as number;
    const event = Object.assign(columns, { ts: times[row] }) as unknown as ListedFields;
    if (matches(event)) hits.push({ data, row, ts: event.ts, seq: event.seq });
  });
  return hits;
}

/**
 * The newest `limit` cold events of the range that pass `matches`, newest first (ts, then seq, descending), and every
 * event of the blocks read whole for them. The hours are read newest first and the walk stops after the hour that
 * made `limit`: a page that the hot rows or a few hours fill reads no older block, and only the blocks holding a
 * returned event are inflated whole.
 */
export async function newestColdEvents(
  db: SqlRunner,
  range: ColdRange,
  matches: (event: ListedFields) => boolean,
  limit: number,
): Promise<{ events: StoredEventRow[]; inflated: StoredEventRow[] }> {
  if (limit <= 0) return { events: [], inflated: [] };
  let hits: Hit[] = [];
  // The `limit`th newest hit so far: a block whose last event is older can add none (null until there are `limit`).
  let bar: Hit | null = null;
  for await (const hour of hoursOfBlocks(db, range)) {
    // Newest last event first, so that the blocks that can still add hits are read before those that cannot.
    const places = [...hour].sort((a, b) => b.lastTs - a.lastTs);
    // A statement reads at most as many blocks as the last one tested (one, then doubling): a page a block fills
    // reads that block alone.
    let due = 1;
    for (let i = 0; i < places.length; ) {
      const next = places.slice(i, i + due).filter((place) => bar === null || place.lastTs >= bar.ts);
      if (next.length === 0) break;
      i += due;
      due = Math.min(2 * due, BLOCKS_PER_STATEMENT);
      for (const { place, data } of await blockData(db, next)) {
        if (bar !== null && place.lastTs < bar.ts) continue;
        hits.push(...hitsIn(data, range, bar?.ts ?? null, matches));
        // Only the newest `limit` can be returned: the blocks of the others need not stay in memory.
        hits = hits.sort(newestFirst).slice(0, limit);
        bar = hits.length === limit ? (hits.at(-1) ?? null) : null;
      }
    }
    if (hits.length >= limit) break;
  }
  return eventsOf(hits, true);
}

/**
 * Blocks a count reads at most before it gives up: a count's filter is one an index serves for rows (countHotListed),
 * but a block is read whole to test its events, ~2 ms of columns a block after its data is read, so a count of a rare
 * filter over weeks of blocks is not made, as a count of a bucket is not made of rows.
 */
export const COUNT_BLOCKS = 64;

/**
 * How many cold events of the range pass `matches`, counted up to `cap` (the count stops there); null when that takes
 * more than COUNT_BLOCKS blocks.
 */
export async function countColdEvents(
  db: SqlRunner,
  range: ColdRange,
  matches: (event: ListedFields) => boolean,
  cap: number,
): Promise<number | null> {
  let count = 0;
  let read = 0;
  for await (const hour of hoursOfBlocks(db, range)) {
    if (count >= cap) break;
    read += hour.length;
    if (read > COUNT_BLOCKS) return null;
    for await (const { data } of blocksOf(db, hour)) count += hitsIn(data, range, null, matches).length;
  }
  return Math.min(count, cap);
}

/** Where the asker says an event is: its time (any instant of its hour finds it) and its server. */
export interface EventHints {
  ts?: number;
  server?: string;
}

/** A cold event looked up by id, and whether every block was searched (false: the scan stopped at ID_SCAN_BLOCKS). */
export interface ColdLookup {
  event: StoredEventRow | null;
  searchedAll: boolean;
}

/**
 * A cold event by id. Hints narrow, never exclude: with a time, the blocks of its hour (the named server's, then every
 * server's) are searched first; with a server alone, that server's newest ID_SCAN_BLOCKS; then, or without hints, the
 * fleet's newest ID_SCAN_BLOCKS. Only each block's ids are inflated until one holds the event.
 */
export async function coldEventById(db: SqlRunner, eventId: string, hints: EventHints): Promise<ColdLookup> {
  const unread = unreadOnce();
  const findIn = async (places: readonly BlockPlace[]): Promise<StoredEventRow | null> => {
    for await (const { data } of blocksOf(db, unread(places))) {
      const row = columnsOf(data, ['eventId'] as const).findIndex((cells) => cells.eventId === eventId);
      if (row >= 0) return listedEventsOf(data, [row])[0] ?? null;
    }
    return null;
  };
  const hour = hints.ts === undefined ? undefined : bucketStart(hints.ts, HOUR_MS);
  const narrowed = [
    ...(hour !== undefined && hints.server !== undefined
      ? [blockConditions({ server: hints.server }, { at: hour })]
      : []),
    ...(hour !== undefined ? [blockConditions({}, { at: hour })] : []),
    ...(hour === undefined && hints.server !== undefined ? [blockConditions({ server: hints.server })] : []),
  ];
  for (const conditions of narrowed) {
    const found = await findIn(await placesWhere(db, conditions, ID_SCAN_BLOCKS));
    if (found !== null) return { event: found, searchedAll: true };
  }
  const newest = await placesWhere(db, [], ID_SCAN_BLOCKS + 1);
  const found = await findIn(newest.slice(0, ID_SCAN_BLOCKS));
  return { event: found, searchedAll: found !== null || newest.length <= ID_SCAN_BLOCKS };
}

/**
 * How far from the record naming it its partner is looked for in cold blocks: the widest window the timing join
 * pairs within (shared/request-join.ts). A pair joined by a request id or a traceparent from further apart is found
 * only while the partner is hot.
 */
const PARTNER_REACH_MS = JOIN_MAX_SPAN_MS + 2 * JOIN_SKEW_MS;

/** A partner to find: its id, the record naming it (which it names back), that record's time and server. */
export interface NamedPartner {
  id: string;
  namedBy: string;
  ts: number;
  server: string;
}

/**
 * The cold records of `named`, looked for in the blocks of the hours within PARTNER_REACH_MS of the naming record:
 * its own server's first, where a client's record and its proxy's almost always are, then every server's for the
 * partners still missing (a request id pairs records whatever server each names).
 */
export async function coldPartners(db: SqlRunner, named: readonly NamedPartner[]): Promise<StoredEventRow[]> {
  const wanted = new Set(named.map((pair) => pairKey(pair.id, pair.namedBy)));
  const hits: Hit[] = [];
  const unread = unreadOnce();
  const search = async (places: readonly BlockPlace[]) => {
    for await (const { data } of blocksOf(db, unread(places))) {
      columnsOf(data, ['eventId', 'partner', 'ts', 'seq'] as const).forEach((row, r) => {
        if (row.partner !== null && wanted.delete(pairKey(String(row.eventId), String(row.partner)))) {
          hits.push({ data, row: r, ts: Number(row.ts), seq: Number(row.seq) });
        }
      });
    }
  };
  const reach = (pair: NamedPartner) => [
    bucketStart(pair.ts - PARTNER_REACH_MS, HOUR_MS),
    bucketStart(pair.ts + PARTNER_REACH_MS, HOUR_MS),
  ];
  const ownHours = new Set(named.flatMap((pair) => reach(pair).map((hour) => JSON.stringify([pair.server, hour]))));
  for (const key of ownHours) {
    const [server, hour] = JSON.parse(key) as [string, number];
    await search(await placesWhere(db, blockConditions({ server }, { at: hour })));
  }
  const stillMissing = named.filter((pair) => wanted.has(pairKey(pair.id, pair.namedBy)));
  for (const hour of new Set(stillMissing.flatMap(reach))) {
    if (wanted.size === 0) break;
    await search(await placesWhere(db, blockConditions({}, { at: hour })));
  }
  return eventsOf(hits, false).events;
}

/**
 * The times of the first and last cold events, null when no block is stored: the blocks of the first and of the
 * last hour (cold_blocks_hour_idx), whatever the number of blocks.
 */
export async function coldSpan(db: SqlRunner): Promise<{ first: number; last: number } | null> {
  const [row] = await db.all<{ first: number | string | null; last: number | string | null }>(sql`SELECT
    (SELECT min(first_ts) FROM cold_blocks WHERE hour = (SELECT min(hour) FROM cold_blocks)) AS first,
    (SELECT max(last_ts) FROM cold_blocks WHERE hour = (SELECT max(hour) FROM cold_blocks)) AS last`);
  if (row === undefined || row.first === null || row.last === null) return null;
  return { first: Number(row.first), last: Number(row.last) };
}
