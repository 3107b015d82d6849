import { sql } from 'drizzle-orm';
import { DAY_MS } from '../../shared/analysis/time-buckets.ts';
import { FINE_COUNTER_TABLES, HOUR_COUNTER_TABLES } from '../counters/levels.ts';
import type { SqlRunner, Store } from '../runner.ts';
import { listTable, rowsTable } from './lists.ts';

/**
 * What retention deletes, table by table (docs/adr/0009-retention.md). Raw events and every count finer than an
 * hour go at the events horizon; the hour counts, identity hours and storms, which the dashboard reads for older
 * ranges, at the counts horizon. Gate state (gate_keys, gate_runs, gate_partitions) is kept: a refusal's block
 * outlives the events that taught it. On PostgreSQL the partitions past the horizons are dropped first
 * (db/queries/day-partitions.ts): the deletes here then find only the hours of the month the counts horizon cuts, and
 * the tables not partitioned (storms, input requests, the denial audit).
 */

/** Rows a delete takes at a time: a short transaction, so that ingest never waits on retention for long. */
export const EVENTS_PER_DELETE = 5_000;

/**
 * Deletes up to `limit` of the oldest events before `before`, with the line blocks no other event still reads;
 * answers how many events went.
 */
export async function deleteEventsBefore(db: SqlRunner, before: number, limit: number): Promise<number> {
  const doomed = await db.all<{ seq: number; block: number }>(sql`SELECT seq, body_block AS block FROM events
    WHERE ts < ${before} ORDER BY ts LIMIT ${limit}`);
  await deleteEventRows(db, doomed);
  return doomed.length;
}

/**
 * Deletes these events' rows and the line blocks no other event still reads (retention, compaction). A block holds up
 * to 32 consecutive lines of one insert (ADR 5), so its other events lie within 32 seqs of any of its own: that
 * window, on the primary key, says whether it is still read.
 */
export async function deleteEventRows(
  db: SqlRunner,
  doomed: readonly { seq: number | string; block: number | string }[],
): Promise<void> {
  if (doomed.length === 0) return;
  const seqs = doomed.map((row) => Number(row.seq));
  await db.run(sql`DELETE FROM events WHERE seq IN ${listTable(db, seqs)}`);
  const blocks = new Map<number, { lo: number; hi: number }>();
  for (const { seq, block } of doomed) {
    const span = blocks.get(Number(block));
    const s = Number(seq);
    if (span === undefined) blocks.set(Number(block), { lo: s, hi: s });
    else blocks.set(Number(block), { lo: Math.min(span.lo, s), hi: Math.max(span.hi, s) });
  }
  const stillRead = await blocksStillRead(db, blocks);
  const gone = [...blocks.keys()].filter((block) => !stillRead.has(block));
  if (gone.length > 0) await db.run(sql`DELETE FROM event_bodies WHERE id IN ${listTable(db, gone)}`);
}

/**
 * Which of these line blocks an event within their windows still reads. On SQLite in one statement: a block of
 * compaction's 4,096 rows of one server holds lines of every server's events (an insert's lines are of all of them),
 * so it ends ~4,000 blocks' rows at once, and a statement each was a round trip to the writer thread each: in a
 * profile of compaction at 10M events a day, 7 s of the 52 s of CPU of the thread that serves requests. On PostgreSQL
 * a look-up each, as before: a join from a list of windows into the distributed events is one Citus may refuse.
 */
async function blocksStillRead(
  db: SqlRunner,
  blocks: ReadonlyMap<number, { lo: number; hi: number }>,
): Promise<Set<number>> {
  const stillRead = new Set<number>();
  if (db.dialect === 'sqlite') {
    const windows = rowsTable(
      db,
      [
        ['block', 'bigint'],
        ['lo', 'bigint'],
        ['hi', 'bigint'],
      ],
      [...blocks].map(([block, { lo, hi }]) => [block, lo - BLOCK_LINES, hi + BLOCK_LINES]),
    );
    const read = await db.all<{ block: number }>(sql`SELECT w.block AS block FROM ${windows} AS w
      WHERE EXISTS (SELECT 1 FROM events WHERE events.seq BETWEEN w.lo AND w.hi AND events.body_block = w.block)`);
    for (const row of read) stillRead.add(Number(row.block));
    return stillRead;
  }
  for (const [block, { lo, hi }] of blocks) {
    const rows = await db.all<{ n: number }>(sql`SELECT 1 AS n FROM events
      WHERE seq BETWEEN ${lo - BLOCK_LINES} AND ${hi + BLOCK_LINES} AND body_block = ${block} LIMIT 1`);
    if (rows.length > 0) stillRead.add(block);
  }
  return stillRead;
}

/** Whether any event lies before `before`: what a retention pass would delete, answered from the time index. */
export async function anyEventBefore(db: SqlRunner, before: number): Promise<boolean> {
  return (await db.all(sql`SELECT 1 AS n FROM events WHERE ts < ${before} LIMIT 1`)).length > 0;
}

/** db/body-codec.ts: the most lines a block holds. */
const BLOCK_LINES = 32;

/**
 * Deletes the counts finer than an hour and the input requests before `eventsBefore`, and the hour counts, storms and the denial audit's
 * rows before `countsBefore`.
 */
export async function deleteCountsBefore(store: Store, eventsBefore: number, countsBefore: number): Promise<number> {
  let deleted = 0;
  for (const table of FINE_COUNTER_TABLES) deleted += await deleteSlices(store, table, 'start', eventsBefore);
  // MCP 2026-07-28's input requests are of the events, read beside them: they go at the events' horizon.
  deleted += await deleteSlices(store, 'input_requests', 'ts', eventsBefore);
  for (const table of HOUR_COUNTER_TABLES) deleted += await deleteSlices(store, table, 'start', countsBefore);
  deleted += await deleteSlices(store, 'storms', 'last_ts', countsBefore);
  // The decision store's audit is read like the hour counts (db/queries/denial-audit.ts).
  deleted += await deleteSlices(store, 'denial_breach', 'answer_ts', countsBefore);
  deleted += await deleteSlices(store, 'denial_replay_hour', 'start', countsBefore);
  return deleted;
}

/** A day of a table per transaction: a day of minute rollups at 10M events a day is some ten thousand rows. */
const SLICE_MS = DAY_MS;

async function deleteSlices(store: Store, table: string, column: string, before: number): Promise<number> {
  const name = sql.raw(table);
  const time = sql.raw(column);
  const rows = await store.all<{ first: number | string | null }>(sql`SELECT MIN(${time}) AS first FROM ${name}`);
  const first = rows[0]?.first;
  if (first == null) return 0;
  let deleted = 0;
  for (let from = Number(first); from < before; from += SLICE_MS) {
    const to = Math.min(before, from + SLICE_MS);
    deleted += await store.transaction((tx) => tx.run(sql`DELETE FROM ${name} WHERE ${time} < ${to}`));
  }
  return deleted;
}

/** Pages one step gives back: 4 MiB of the default 4 KiB pages, a short hold of the writer. */
const PAGES_PER_RELEASE = 1_000;

/**
 * Gives the pages retention freed back to the file system, a step per transaction, on a SQLite store made with
 * incremental auto-vacuum (db/sqlite.ts); answers how many pages went. Without it, the file keeps its largest size
 * and reuses the pages instead. PostgreSQL's autovacuum does its own.
 */
export async function releaseFreePages(store: Store): Promise<number> {
  if (store.dialect !== 'sqlite') return 0;
  const [mode] = await store.all<{ auto_vacuum: number }>(sql`PRAGMA auto_vacuum`);
  if (mode?.auto_vacuum !== INCREMENTAL) return 0;
  const [free] = await store.all<{ freelist_count: number }>(sql`PRAGMA freelist_count`);
  const pages = free?.freelist_count ?? 0;
  for (let left = pages; left > 0; left -= PAGES_PER_RELEASE) {
    // SQLite frees one page per step of this statement, and a run steps it once: `runEach` runs it once a page.
    await store.transaction(async (tx) => tx.runEach?.('PRAGMA incremental_vacuum', ONE_STEP_EACH));
    // Between steps, so that ingest batches get the writer in turn.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return pages;
}

const ONE_STEP_EACH: readonly [][] = Array.from({ length: PAGES_PER_RELEASE }, () => []);

/** SQLite's `PRAGMA auto_vacuum` value for INCREMENTAL. */
const INCREMENTAL = 2;
