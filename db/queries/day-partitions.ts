import { sql } from 'drizzle-orm';
import { DAY_MS } from '../../shared/analysis/time-buckets.ts';
import { LAST_INSTANT_MS } from '../../shared/instant.ts';
import { BLOCKS_PER_DAY } from '../event-days.ts';
import type { SqlRunner, Store } from '../runner.ts';
import { LOCK_CLASS } from './locks.ts';

/**
 * The day partitions of `events` and `event_bodies` on PostgreSQL (docs/adr/0009-retention.md): a UTC day's events
 * in `events_pYYYYMMDD`, their line blocks in `event_bodies_pYYYYMMDD`, made together and dropped together. There is
 * no default partition: a row with no partition of its day fails instead of landing where a later day's partition
 * could not be attached beside it, so every day is made before its rows come (ensureEventDays). SQLite keeps one
 * table and deletes rows (db/queries/retention.ts); everything here does nothing there.
 */

/** The days each store is known to hold a partition of, so that a batch of known days asks nothing. */
const knownDays = new WeakMap<Store, Set<number>>();

/** Makes the partitions of the days among `days` that have none yet: before a transaction that inserts rows of them. */
export async function ensureEventDays(store: Store, days: Iterable<number>): Promise<void> {
  if (store.dialect !== 'postgres') return;
  const known = knownDays.get(store) ?? new Set<number>();
  knownDays.set(store, known);
  const missing = [...new Set(days)].filter((day) => !known.has(day));
  if (missing.length === 0) return;
  const held = await store.transaction(async (tx) => {
    // One maker at a time across processes: two would both find a day missing and the second would fail.
    await tx.all(sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS.partitions}, 0)`);
    const existing = new Set(await eventDays(tx));
    for (const day of missing) {
      if (existing.has(day)) continue;
      await attachDay(tx, day);
      existing.add(day);
    }
    return existing;
  });
  for (const day of held) known.add(day);
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

/** The days that have a partition of events, in order. */
export async function eventDays(db: SqlRunner): Promise<number[]> {
  const rows = await db.all<{ name: string }>(sql`SELECT c.relname AS name FROM pg_inherits AS i
    JOIN pg_class AS c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY c.relname`);
  return rows.map((row) => dayOfName(row.name));
}

/**
 * A new table, then attached: ATTACH PARTITION takes only SHARE UPDATE EXCLUSIVE on the parent, so ingest and reads
 * go on meanwhile, where CREATE TABLE … PARTITION OF would take ACCESS EXCLUSIVE. The parent's indexes are built on
 * the empty table as it is attached.
 */
async function attachDay(db: SqlRunner, day: number): Promise<void> {
  const { events, bodies } = partitionNames(day);
  await db.run(sql.raw(`CREATE TABLE ${events} (LIKE events)`));
  await db.run(
    sql.raw(
      `ALTER TABLE events ATTACH PARTITION ${events} FOR VALUES FROM (${day * DAY_MS}) TO (${(day + 1) * DAY_MS})`,
    ),
  );
  await db.run(sql.raw(`CREATE TABLE ${bodies} (LIKE event_bodies)`));
  await db.run(
    sql.raw(
      `ALTER TABLE event_bodies ATTACH PARTITION ${bodies} FOR VALUES FROM (${day * BLOCKS_PER_DAY}) TO (${(day + 1) * BLOCKS_PER_DAY})`,
    ),
  );
}

/**
 * Drops the partitions of the days before `day`, a day per transaction; answers how many events went with them. DROP TABLE of a
 * partition takes ACCESS EXCLUSIVE on the parent for a moment: it waits at most LOCK_WAIT for the statements running
 * on events, so that the ones queued behind it are not held long, and a day it could not drop is dropped next pass.
 */
export async function dropEventDaysBefore(store: Store, day: number): Promise<number> {
  if (store.dialect !== 'postgres') return 0;
  const doomed = (await eventDays(store)).filter((held) => held < day);
  let dropped = 0;
  for (const old of doomed) {
    const { events, bodies } = partitionNames(old);
    const gone = await store
      .transaction(async (tx) => {
        await tx.all(sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS.partitions}, 0)`);
        const [held] = await tx.all<{ n: number }>(sql.raw(`SELECT count(*) AS n FROM ${events}`));
        await tx.run(sql.raw(`SET LOCAL lock_timeout = '${LOCK_WAIT}'`));
        await tx.run(sql.raw(`DROP TABLE ${events}, ${bodies}`));
        return Number(held?.n ?? 0);
      })
      .catch((error: unknown) => {
        if (error instanceof Error && 'code' in error && error.code === LOCK_NOT_AVAILABLE) return null;
        throw error;
      });
    if (gone === null) break;
    knownDays.get(store)?.delete(old);
    dropped += gone;
  }
  return dropped;
}

const LOCK_WAIT = '5s';
const LOCK_NOT_AVAILABLE = '55P03';

/** A day's tables: `events_p20261204`, `event_bodies_p20261204` (the migration events_by_day names them alike). */
export function partitionNames(day: number): { events: string; bodies: string } {
  // Past 9999 the ISO year gets a sign and six digits (`events_p+…`); readers refuse such times (shared/instant.ts).
  if (!(day >= 0 && day * DAY_MS <= LAST_INSTANT_MS)) throw new RangeError(`no day partition for day ${day}`);
  const stamp = new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '');
  return { events: `events_p${stamp}`, bodies: `event_bodies_p${stamp}` };
}

function dayOfName(name: string): number {
  const stamp = name.slice('events_p'.length);
  return Date.UTC(Number(stamp.slice(0, 4)), Number(stamp.slice(4, 6)) - 1, Number(stamp.slice(6, 8))) / DAY_MS;
}
