import { sql } from 'drizzle-orm';
import { DAY_MS } from '../../shared/analysis/time-buckets.ts';
import { LAST_INSTANT_MS } from '../../shared/instant.ts';
import { FINE_COUNTER_TABLES, HOUR_COUNTER_TABLES } from '../counters/levels.ts';
import { BLOCKS_PER_DAY } from '../event-days.ts';
import type { SqlRunner, Store } from '../runner.ts';
import { LOCK_CLASS, waitForFoldLock } from './locks.ts';

/**
 * The time partitions of PostgreSQL (docs/adr/0009-retention.md): a UTC day's events in `events_pYYYYMMDD`, their line
 * blocks in `event_bodies_pYYYYMMDD` and its counts finer than an hour in `<table>_pYYYYMMDD`, made together and
 * dropped together; the hour counts, kept longer, in a partition per month, `<table>_pYYYYMM`. There is no default
 * partition: a row with no partition of its day fails instead of landing where a later day's partition could not be
 * attached beside it, so every day is made, with its month, before its rows come (ensureEventDays). SQLite keeps one
 * table each and deletes rows (db/queries/retention.ts); everything here does nothing there.
 */

/** A partition holds a UTC day or a UTC month of its table's rows. */
type Span = 'day' | 'month';

interface Partitioned {
  table: string;
  span: Span;
  /** The partition key's value where a day's rows begin: a time, or a day's first line block (db/event-days.ts). */
  keyAt: (day: number) => number;
}

const timeAt = (day: number) => day * DAY_MS;

/** Every table kept in time partitions, the day ones first: what a day needs before its rows come. */
const PARTITIONED: readonly Partitioned[] = [
  { table: 'events', span: 'day', keyAt: timeAt },
  { table: 'event_bodies', span: 'day', keyAt: (day) => day * BLOCKS_PER_DAY },
  { table: 'cold_blocks', span: 'day', keyAt: timeAt },
  ...FINE_COUNTER_TABLES.map((table): Partitioned => ({ table, span: 'day', keyAt: timeAt })),
  ...HOUR_COUNTER_TABLES.map((table): Partitioned => ({ table, span: 'month', keyAt: timeAt })),
];

/** The days each store is known to hold every partition of, so that a batch of known days asks nothing. */
const knownDays = new WeakMap<Store, Set<number>>();

/** Makes the partitions of the days among `days` that lack one: before a transaction that inserts rows of them. */
export async function ensureEventDays(store: Store, days: Iterable<number>): Promise<void> {
  if (store.dialect !== 'postgres') return;
  const known = knownDays.get(store) ?? new Set<number>();
  knownDays.set(store, known);
  const missing = [...new Set(days)].filter((day) => !known.has(day));
  if (missing.length === 0) return;
  await store.transaction(async (tx) => {
    // One maker at a time across processes: two would both find a day missing and the second would fail.
    await tx.all(sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS.partitions}, 0)`);
    const held = new Set((await heldPartitions(tx)).map((partition) => partition.name));
    for (const day of missing) {
      for (const partitioned of PARTITIONED) {
        const name = partitionName(partitioned.table, partitioned.span, day);
        if (held.has(name)) continue;
        await attach(tx, partitioned, day);
        held.add(name);
      }
    }
  });
  for (const day of missing) known.add(day);
}

/**
 * Runs `work` (the ingest transaction) after making the days it inserts; if another process dropped one of them
 * meanwhile (retention, for rows past its horizon), makes it again and runs `work` once more.
 */
export async function withEventDays<T>(store: Store, days: readonly number[], work: () => Promise<T>): Promise<T> {
  await ensureEventDays(store, days);
  try {
    return await work();
  } catch (error) {
    if (!isMissingPartition(error)) throw error;
    knownDays.delete(store);
    await ensureEventDays(store, days);
    return work();
  }
}

/** PostgreSQL's answer to a row no partition takes: check_violation, "no partition of relation … found for row". */
function isMissingPartition(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    error.code === '23514' &&
    error.message.startsWith('no partition of relation')
  );
}

/** A partition the store holds: its table, its name and the first day it holds. */
interface Held {
  table: string;
  name: string;
  day: number;
}

/** The partitions of the tables kept in time partitions, by table and name. */
async function heldPartitions(db: SqlRunner): Promise<Held[]> {
  const rows = await db.all<{ table: string; name: string }>(sql`SELECT p.relname AS "table", c.relname AS name
    FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid JOIN pg_class AS p ON p.oid = i.inhparent
    WHERE p.relkind = 'p' AND pg_table_is_visible(p.oid) ORDER BY 1, 2`);
  const tables = new Set(PARTITIONED.map((partitioned) => partitioned.table));
  return rows
    .filter((row) => tables.has(row.table))
    .map((row) => ({ ...row, day: dayOfStamp(row.name.slice(row.table.length + '_p'.length)) }));
}

/**
 * A new table, then attached: ATTACH PARTITION takes only SHARE UPDATE EXCLUSIVE on the parent, so ingest and reads
 * go on meanwhile, where CREATE TABLE … PARTITION OF would take ACCESS EXCLUSIVE. The parent's indexes are built on
 * the empty table as it is attached.
 */
async function attach(db: SqlRunner, { table, span, keyAt }: Partitioned, day: number): Promise<void> {
  const name = partitionName(table, span, day);
  const [first, end] = periodOf(span, day);
  await db.run(sql.raw(`CREATE TABLE ${name} (LIKE ${table})`));
  await db.run(
    sql.raw(`ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM (${keyAt(first)}) TO (${keyAt(end)})`),
  );
}

/**
 * Drops the day partitions (events, their line blocks, the counts finer than an hour) of the days before `day`, a
 * day per transaction; answers how many events and count rows went with them.
 */
export async function dropEventDaysBefore(store: Store, day: number): Promise<{ events: number; counts: number }> {
  return dropBefore(store, 'day', day);
}

/**
 * Drops the month partitions of the hour counts of the months that end by `day`: a month the horizon cuts stays, its
 * rows before the horizon deleted row by row (db/queries/retention.ts); answers how many count rows went.
 */
export async function dropCountMonthsBefore(store: Store, day: number): Promise<number> {
  return (await dropBefore(store, 'month', day)).counts;
}

/**
 * DROP TABLE of a partition takes ACCESS EXCLUSIVE on its parent for a moment: it waits at most LOCK_WAIT for the
 * statements running on it, so that the ones queued behind it are not held long, and a period it could not drop
 * (NEXT_PASS) is dropped on the next pass.
 */
async function dropBefore(store: Store, span: Span, day: number): Promise<{ events: number; counts: number }> {
  const dropped = { events: 0, counts: 0 };
  if (store.dialect !== 'postgres') return dropped;
  const spanned = new Set(PARTITIONED.filter((partitioned) => partitioned.span === span).map((p) => p.table));
  const doomed = new Map<number, Held[]>();
  for (const held of await heldPartitions(store)) {
    if (!spanned.has(held.table) || periodOf(span, held.day)[1] > day) continue;
    doomed.set(held.day, [...(doomed.get(held.day) ?? []), held]);
  }
  for (const [first, partitions] of [...doomed].sort(([a], [b]) => a - b)) {
    const gone = await store
      .transaction(async (tx) => {
        // No fold beside it: a fold holds the parents of the counts it has written while it writes more, and the
        // drop takes them all, in its own order; the two would deadlock.
        await waitForFoldLock(tx);
        await tx.all(sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS.partitions}, 0)`);
        // Line blocks go with their events and are counted as neither; a cold block counts the events it holds.
        const counted = partitions.filter((held) => held.table !== 'event_bodies');
        const rows = await Promise.all(counted.map((held) => rowsOf(tx, held)));
        await tx.run(sql.raw(`SET LOCAL lock_timeout = '${LOCK_WAIT}'`));
        await tx.run(sql.raw(`DROP TABLE ${partitions.map((held) => held.name).join(', ')}`));
        return counted.map((held, i) => ({ table: held.table, rows: rows[i] as number }));
      })
      .catch((error: unknown) => {
        if (error instanceof Error && 'code' in error && NEXT_PASS.has(String(error.code))) return null;
        throw error;
      });
    if (gone === null) break;
    const [from, end] = periodOf(span, first);
    for (let held = from; held < end; held++) knownDays.get(store)?.delete(held);
    for (const { table, rows } of gone) {
      if (table === 'events' || table === 'cold_blocks') dropped.events += rows;
      else dropped.counts += rows;
    }
  }
  return dropped;
}

async function rowsOf(db: SqlRunner, held: Held): Promise<number> {
  const count = held.table === 'cold_blocks' ? 'coalesce(sum(rows), 0)' : 'count(*)';
  const [row] = await db.all<{ n: number }>(sql.raw(`SELECT ${count} AS n FROM ${held.name}`));
  return Number(row?.n ?? 0);
}

const LOCK_WAIT = '5s';
/**
 * What leaves a period for the next pass: lock_not_available (LOCK_WAIT passed), deadlock_detected (a gate replay,
 * which writes counts outside the fold lock, held a parent the drop wanted and wanted one it held).
 */
const NEXT_PASS = new Set(['55P03', '40P01']);

/** The first day of the span holding `day` and the first day after it. */
function periodOf(span: Span, day: number): [number, number] {
  if (span === 'day') return [day, day + 1];
  const date = new Date(day * DAY_MS);
  const [year, month] = [date.getUTCFullYear(), date.getUTCMonth()];
  return [Date.UTC(year, month, 1) / DAY_MS, Date.UTC(year, month + 1, 1) / DAY_MS];
}

/** A table's partition holding `day`: `events_p20261204` for a day, `rollup_hour_p202612` for a month. */
export function partitionName(table: string, span: Span, day: number): string {
  // Past 9999 the ISO year gets a sign and six digits (`events_p+…`); readers refuse such times (shared/instant.ts).
  if (!(day >= 0 && day * DAY_MS <= LAST_INSTANT_MS)) throw new RangeError(`no day partition for day ${day}`);
  const stamp = new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '');
  return `${table}_p${span === 'day' ? stamp : stamp.slice(0, 6)}`;
}

/** A day's tables of events and line blocks (the migration events_by_day names them alike). */
export function partitionNames(day: number): { events: string; bodies: string } {
  return { events: partitionName('events', 'day', day), bodies: partitionName('event_bodies', 'day', day) };
}

/** The first day a partition's stamp names: `20261204` that day, `202612` the month's first. */
function dayOfStamp(stamp: string): number {
  const day = stamp.length > 6 ? Number(stamp.slice(6, 8)) : 1;
  return Date.UTC(Number(stamp.slice(0, 4)), Number(stamp.slice(4, 6)) - 1, day) / DAY_MS;
}
