import { type SQL, sql } from 'drizzle-orm';
import { bucketStart, HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { type Cell, type ColumnSpec, packColumns, unpackColumns } from '../../shared/column-block.ts';
import { EVENT_BLOCK_COLUMNS, LINE_COLUMN } from '../cold-block.ts';
import { EVENT_COLUMNS, type EventColumns, storedKey } from '../event-row.ts';
import type { SqlRunner } from '../runner.ts';
import { identityText } from '../stored-identity.ts';
import { LINE_PLACE, linesOfRows, type WithBlock } from './bodies.ts';
import { whereClause } from './events.ts';
import { listTable, rowsTable } from './lists.ts';
import { getSetting, raiseSetting } from './settings.ts';

/**
 * Cold events (docs/adr/0021-cold-events-in-blocks.md): a server's events of a clock hour past the hot window, packed
 * column by column with their lines into `cold_blocks`, in place of their rows, indexes and line blocks. Here: which
 * rows go into the next block, the block packed and unpacked, and the blocks a read of a range finds.
 */

/**
 * Rows a block holds at most: reading one cold event inflates its whole block, ~30 ms at 4,096 rows on the machine
 * ADR 21 measured, against ~240 ms for a server's hour of ~16,700; the smaller block costs ~5 B an event more.
 */
export const COLD_BLOCK_ROWS = 4_096;

/** An event as a cold block keeps it: every column of its row (the identity as the API names it) and its line. */
export interface ColdEvent extends EventColumns {
  body: string;
}

/** The next rows to pack: one server's oldest hour before the hot window, up to COLD_BLOCK_ROWS of it. */
export interface ColdCandidate {
  server: string;
  hour: number;
  rows: WithBlock<ColdEvent>[];
}

/** Every column of an event row as EventColumns names it, and where its line is. */
function rowColumns(db: SqlRunner): SQL {
  const plain = EVENT_COLUMNS.map(([field, column]) => `${column} AS "${field}"`).join(', ');
  return sql`seq, partner, blocked_by AS "blockedBy", ${identityText(db, 'events')} AS identity,
    ${sql.raw(plain)}, ${LINE_PLACE}`;
}

/** Which servers' rows a compaction looks at: one only, or all but some. */
export interface ServerChoice {
  only?: string;
  avoid?: readonly string[];
}

/**
 * The rows of the server and hour of the oldest event before `before` (of the servers `choice` leaves), oldest first
 * (time, then arrival), at most COLD_BLOCK_ROWS and none from `before` on; null when no event is that old. Read twice
 * by a compaction, once to pack them and once in its transaction, to find them unchanged.
 */
export async function oldestColdRows(
  db: SqlRunner,
  before: number,
  { only, avoid = [] }: ServerChoice = {},
): Promise<ColdCandidate | null> {
  const conditions = [sql`ts < ${before}`];
  if (only !== undefined) conditions.push(sql`server = ${only}`);
  if (avoid.length > 0) conditions.push(sql`server NOT IN ${listTable(db, avoid)}`);
  const [oldest] = await db.all<{ server: string; ts: number | string }>(
    sql`SELECT server, ts FROM events ${whereClause(conditions)} ORDER BY ts LIMIT 1`,
  );
  if (oldest === undefined) return null;
  const hour = bucketStart(Number(oldest.ts), HOUR_MS);
  const end = Math.min(hour + HOUR_MS, before);
  // Both stores answer integers as numbers (db/postgres.ts parses bigint), as a block's delta columns need.
  const rows = await db.all<WithBlock<ColdEvent>>(sql`SELECT ${rowColumns(db)} FROM events
    WHERE server = ${oldest.server} AND ts >= ${hour} AND ts < ${end} ORDER BY ts, seq LIMIT ${COLD_BLOCK_ROWS}`);
  return { server: oldest.server, hour, rows };
}

/** The columns a block holds, in its order: every column of the row, then the line. */
const BLOCK_COLUMNS = [...EVENT_BLOCK_COLUMNS, LINE_COLUMN];

/**
 * Events packed into one block, in the order given, each row with its line (`lines[r]`): shared/column-block.ts,
 * brotli (ADR 21 measured it lightest), compressed off the thread that serves requests. A row's other fields (where
 * its line was) are not columns of a block, and are left out.
 */
export function packColdEvents(rows: readonly EventColumns[], lines: readonly string[]): Promise<Buffer> {
  const cells = rows.map((row, r): Record<string, Cell> => ({ ...row, line: lines[r] ?? null }));
  return packColumns(BLOCK_COLUMNS, cells, 'brotli');
}

/**
 * A block's events, in the order they were packed, or those of `rows` (ascending row numbers) alone; with `fields`,
 * those fields alone (the others' columns are not inflated: a read that needs a few pays for a few, `body` being the
 * line, most of a block's bytes). A column the block lacks (added to the row since) reads null.
 */
export function unpackColdEvents<Field extends keyof ColdEvent = keyof ColdEvent>(
  data: Uint8Array,
  rows?: readonly number[],
  fields?: readonly Field[],
): Pick<ColdEvent, Field>[] {
  const wanted = (name: string) => fields === undefined || (fields as readonly string[]).includes(name);
  const specs = EVENT_BLOCK_COLUMNS.filter((spec) => wanted(spec.name));
  const withLine = wanted('body');
  const names = [...specs, ...(withLine ? [LINE_COLUMN] : [])].map((spec) => spec.name);
  const { columns, rowCount, values } = unpackColumns(data, names, rows);
  const events: Record<string, Cell>[] = Array.from({ length: rowCount }, () => ({}));
  for (const spec of specs) {
    const c = columns.findIndex((column) => column.name === spec.name);
    const column = c < 0 ? undefined : values[c];
    for (let r = 0; r < rowCount; r++) (events[r] as Record<string, Cell>)[spec.name] = column?.[r] ?? null;
  }
  if (withLine) {
    const lines = values[columns.findIndex((column) => column.name === LINE_COLUMN.name)];
    for (let r = 0; r < rowCount; r++) (events[r] as Record<string, Cell>).body = lines?.[r] ?? '';
  }
  return events as unknown as Pick<ColdEvent, Field>[];
}

/** The lines of the candidate's rows, in their order: what a block holds beside the columns. */
export async function linesOfCandidate(db: SqlRunner, rows: readonly WithBlock<ColdEvent>[]): Promise<string[]> {
  const lines = await linesOfRows(db, rows);
  return lines.map((line) => {
    if (line === undefined) throw new Error('an event of a cold block has no line');
    return line;
  });
}

/** Stores a packed block of a server's hour; its events' rows go in the same transaction (api/services/compaction.ts). */
export async function insertColdBlock(
  db: SqlRunner,
  server: string,
  hour: number,
  events: readonly Pick<ColdEvent, 'seq' | 'ts'>[],
  data: Buffer,
): Promise<void> {
  const first = events[0];
  const last = events.at(-1);
  if (first === undefined || last === undefined) return;
  await db.run(sql`INSERT INTO cold_blocks (server, hour, first_seq, first_ts, last_ts, rows, data)
    VALUES (${server}, ${hour}, ${first.seq}, ${first.ts}, ${last.ts}, ${events.length}, ${data})`);
}

/** A stored block: where its events are, and its data. */
export interface ColdBlock {
  server: string;
  hour: number;
  firstSeq: number;
  firstTs: number;
  lastTs: number;
  rows: number;
  data: Uint8Array;
}

/** Which blocks a read looks in: a server's or the fleet's, from and to (epoch ms, inclusive and exclusive). */
export interface ColdRange {
  server?: string;
  from?: number;
  to?: number;
}

/**
 * The blocks holding events of the range, newest hour first (the events list's order) or oldest first, up to `limit`
 * blocks. A block is of one hour, so the hour bounds it; its first and last times bound it closer.
 */
export async function coldBlocksIn(
  db: SqlRunner,
  range: ColdRange,
  order: 'newest' | 'oldest',
  limit: number,
): Promise<ColdBlock[]> {
  const direction = order === 'newest' ? sql`DESC` : sql`ASC`;
  return readBlocks(db, rangeConditions(range), sql`hour ${direction}, first_seq ${direction}`, limit);
}

/** Where the range's first `limit` blocks are, their data left unread: whether a range holds packed events at all. */
export async function coldBlockHeads(
  db: SqlRunner,
  range: ColdRange,
  limit: number,
): Promise<Omit<ColdBlock, 'data'>[]> {
  return db.all<Omit<ColdBlock, 'data'>>(sql`SELECT server, hour, first_seq AS "firstSeq", first_ts AS "firstTs",
    last_ts AS "lastTs", rows FROM cold_blocks ${whereClause(rangeConditions(range))} LIMIT ${limit}`);
}

/** The conditions that keep the blocks that can hold events of the range. */
export function rangeConditions(range: ColdRange): SQL[] {
  const conditions: SQL[] = [];
  if (range.server !== undefined) conditions.push(sql`server = ${range.server}`);
  if (range.from !== undefined) {
    conditions.push(sql`hour >= ${bucketStart(range.from, HOUR_MS)}`, sql`last_ts >= ${range.from}`);
  }
  if (range.to !== undefined) conditions.push(sql`hour < ${range.to}`, sql`first_ts < ${range.to}`);
  return conditions;
}

async function readBlocks(db: SqlRunner, conditions: SQL[], order: SQL, limit: number): Promise<ColdBlock[]> {
  const rows = await db.all<Record<keyof ColdBlock, number | string | Uint8Array>>(sql`SELECT server, hour,
    first_seq AS "firstSeq", first_ts AS "firstTs", last_ts AS "lastTs", rows, data FROM cold_blocks
    ${whereClause(conditions)} ORDER BY ${order} LIMIT ${limit}`);
  return rows.map((row) => ({
    server: String(row.server),
    hour: Number(row.hour),
    firstSeq: Number(row.firstSeq),
    firstTs: Number(row.firstTs),
    lastTs: Number(row.lastTs),
    rows: Number(row.rows),
    data: row.data as Uint8Array,
  }));
}

const COLD_BEFORE_KEY = 'cold_before';

/**
 * Where the hot events begin: every event before it has been, or is about to be, packed into a block (null: no
 * compaction ever ran). Recorded before a pass packs anything and never moved back, like retention's horizons.
 */
export async function coldBefore(db: SqlRunner): Promise<number | null> {
  const value = await getSetting(db, COLD_BEFORE_KEY);
  return value === null ? null : Number(value);
}

/**
 * Moves the horizon up to `before`, never back, and answers where it now is: another server's pass on the same
 * database may have recorded a later one, and reads take a packed hour's events from rows before it.
 */
export function recordColdBefore(db: SqlRunner, before: number): Promise<number> {
  return raiseSetting(db, COLD_BEFORE_KEY, before);
}

/** Deletes the blocks of the hours before `before` (retention, on SQLite: PostgreSQL drops their day partitions). */
export async function deleteColdBlocksBefore(db: SqlRunner, before: number): Promise<number> {
  const [gone] = await db.all<{ n: number | string | null }>(
    sql`SELECT sum(rows) AS n FROM cold_blocks WHERE hour < ${before}`,
  );
  await db.run(sql`DELETE FROM cold_blocks WHERE hour < ${before}`);
  return Number(gone?.n ?? 0);
}

/** A server's clock hour as the cold-hour lock names it (LOCK_CLASS.coldHour). */
export function coldHourKey(server: string, hour: number): string {
  return JSON.stringify([server, hour]);
}

/**
 * The stored keys (db/event-row.ts storedKey) of the events already packed in the blocks of these servers' hours: a
 * re-sent event older than the hot window finds its first copy there, not in `events`' unique key. Only the blocks'
 * ids and times are inflated; a batch of live events finds no block and costs one look-up.
 */
export async function packedKeys(
  db: SqlRunner,
  serverHours: readonly { server: string; hour: number }[],
): Promise<Set<string>> {
  const keys = new Set<string>();
  if (serverHours.length === 0) return keys;
  const wanted = rowsTable(
    db,
    [
      ['server', 'text'],
      ['hour', 'bigint'],
    ],
    serverHours.map(({ server, hour }) => [server, hour]),
  );
  const blocks = await db.all<{ server: string; data: Uint8Array }>(sql`SELECT cold_blocks.server AS server, data
    FROM cold_blocks JOIN ${wanted} AS wanted ON cold_blocks.server = wanted.server AND cold_blocks.hour = wanted.hour`);
  for (const block of blocks) {
    const { columns, rowCount, values } = unpackColumns(block.data, ['eventId', 'ts']);
    const ids = values[columns.findIndex((column) => column.name === 'eventId')];
    const times = values[columns.findIndex((column) => column.name === 'ts')];
    for (let r = 0; r < rowCount; r++) {
      keys.add(storedKey({ eventId: String(ids?.[r]), ts: Number(times?.[r]), server: block.server }));
    }
  }
  return keys;
}

/**
 * The cold events of a range that `keep` keeps, oldest block first (each block's events in time order), with every
 * field or, given `fields`, those alone (`keep` sees no other). Where `probe` names columns, each block is first
 * inflated in those alone, and only the rows `probe.test` keeps are made events: a storm's attempts or an identity's
 * sends are a few rows of a server's hour. So `probe.test` must keep every row `keep` would.
 */
export async function coldEventsIn<Field extends keyof ColdEvent = keyof ColdEvent>(
  db: SqlRunner,
  range: ColdRange,
  keep: (event: Pick<ColdEvent, Field>) => boolean,
  probe?: { columns: readonly (keyof ColdEvent)[]; test: (row: Partial<ColdEvent>) => boolean },
  fields?: readonly Field[],
): Promise<NoInfer<Pick<ColdEvent, Field>>[]> {
  const found: Pick<ColdEvent, Field>[] = [];
  const inRange = (ts: number) =>
    (range.from === undefined || ts >= range.from) && (range.to === undefined || ts < range.to);
  // The range's test needs the times, whatever the fields asked.
  const read = fields === undefined ? undefined : [...new Set<Field | 'ts'>([...fields, 'ts'])];
  let after: ColdBlockPlace | null = null;
  for (;;) {
    // A few blocks at a time: a day of the fleet's blocks is hundreds of megabytes.
    const blocks = await coldBlocksAfter(db, range, after, BLOCKS_PER_READ);
    for (const block of blocks) {
      const rows = probe === undefined ? undefined : probedRows(block.data, probe);
      if (rows?.length === 0) continue;
      for (const event of unpackColdEvents(block.data, rows, read)) {
        if (inRange(event.ts) && keep(event as Pick<ColdEvent, Field>)) found.push(event as Pick<ColdEvent, Field>);
      }
    }
    const last = blocks.at(-1);
    if (last === undefined || blocks.length < BLOCKS_PER_READ) return found;
    after = last;
  }
}

const BLOCKS_PER_READ = 8;

/** Where a block is in the order of a range's read: its hour, server and first seq. */
type ColdBlockPlace = Pick<ColdBlock, 'hour' | 'server' | 'firstSeq'>;

/** The range's next `limit` blocks after `after` (from the start when null), oldest hour first. */
async function coldBlocksAfter(
  db: SqlRunner,
  range: ColdRange,
  after: ColdBlockPlace | null,
  limit: number,
): Promise<ColdBlock[]> {
  const past =
    after === null
      ? []
      : [
          sql`(hour > ${after.hour} OR (hour = ${after.hour} AND (server > ${after.server}
            OR (server = ${after.server} AND first_seq > ${after.firstSeq}))))`,
        ];
  return readBlocks(db, [...rangeConditions(range), ...past], sql`hour, server, first_seq`, limit);
}

/**
 * The rows of a block that `probe.test` keeps, by its columns alone. One object holds each row in turn while it is
 * tested (a probe is a test of a few columns, and keeps nothing): a block's 4,096 rows made no garbage of 4,096.
 */
function probedRows(
  data: Uint8Array,
  probe: { columns: readonly (keyof ColdEvent)[]; test: (row: Partial<ColdEvent>) => boolean },
): number[] {
  const { columns, rowCount, values } = unpackColumns(data, probe.columns);
  const kept: number[] = [];
  const row: Record<string, Cell> = {};
  for (let r = 0; r < rowCount; r++) {
    for (let c = 0; c < columns.length; c++) row[(columns[c] as ColumnSpec).name] = values[c]?.[r] ?? null;
    if (probe.test(row as Partial<ColdEvent>)) kept.push(r);
  }
  return kept;
}

/**
 * The events with these keys (event id, time, server) among those packed in cold blocks: a read of each key's
 * server and hour, its blocks inflated whole only where their id column holds one of the keys.
 */
export async function packedEvents(
  db: SqlRunner,
  keys: readonly { eventId: string; ts: number; server: string }[],
): Promise<ColdEvent[]> {
  const hours = new Map<string, { server: string; hour: number; ids: Set<string>; wanted: Set<string> }>();
  for (const key of keys) {
    const hour = bucketStart(key.ts, HOUR_MS);
    const place = coldHourKey(key.server, hour);
    const held = hours.get(place) ?? { server: key.server, hour, ids: new Set<string>(), wanted: new Set<string>() };
    held.ids.add(key.eventId);
    held.wanted.add(storedKey(key));
    hours.set(place, held);
  }
  const found: ColdEvent[] = [];
  for (const { server, hour, ids, wanted } of hours.values()) {
    found.push(
      ...(await coldEventsIn(db, { server, from: hour, to: hour + HOUR_MS }, (event) => wanted.has(storedKey(event)), {
        columns: ['eventId'],
        test: (row) => row.eventId !== undefined && ids.has(row.eventId),
      })),
    );
  }
  return found;
}
