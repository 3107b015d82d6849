import { eventDay } from '../../db/event-days.ts';
import {
  type ColdCandidate,
  coldHourKey,
  insertColdBlock,
  linesOfCandidate,
  oldestColdRows,
  packColdEvents,
  recordColdBefore,
} from '../../db/queries/cold-events.ts';
import { ensureEventDays } from '../../db/queries/day-partitions.ts';
import { auditsPending, rebaseDenialAudit } from '../../db/queries/denial-audit.ts';
import { stillQueued } from '../../db/queries/fold-queue.ts';
import { LOCK_CLASS, lockKeys, waitForFoldLock } from '../../db/queries/locks.ts';
import { deleteEventRows } from '../../db/queries/retention.ts';
import type { Store } from '../../db/runner.ts';
import { bucketStart, HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { stepCheckpoints } from './gate-checkpoints.ts';

/**
 * Compaction (docs/adr/0021-cold-events-in-blocks.md): the events older than the hot window leave their rows, indexes
 * and line blocks for column blocks of a server's hour. Each block is packed outside any transaction (brotli is the
 * costly part, ~0.5 s for a full block), then swapped in by one short one: the same rows read again and found
 * unchanged, the block inserted and the rows deleted together. So a crash (kill -9) at any point leaves each event
 * either a row or in a block, never both nor neither, and the counts, which are of the events and not of their form,
 * are never touched.
 */

/** What a compaction pass did: events packed into how many blocks, and whether it stopped with more to do. */
export interface Compacted {
  events: number;
  blocks: number;
  /** Blocks packed and thrown away, their rows changed meanwhile (most often: another server swapped them in). */
  discarded: number;
  /** It stopped on a row the fold has not counted yet, or on `keepGoing`: the next pass goes on from there. */
  stopped: boolean;
}

/**
 * The shortest hot window: ingest looks for re-sent events in the blocks of the hours before the last whole one by
 * its own clock (api/services/ingest.ts), so a window of two hours leaves an hour for the clocks of several servers
 * on one store to differ.
 */
export const MIN_HOT_WINDOW_MS = 2 * HOUR_MS;

/** `lens serve`'s window unless told otherwise: what issue 41 asks for, two days of events as rows. */
export const DEFAULT_HOT_WINDOW_MS = 48 * HOUR_MS;

/** Attempts at a block whose rows changed under it (a late verdict) before the pass leaves it to the next. */
const RETRIES = 3;

/**
 * Packs every event before the hot window's start (the hour `hotMs` before `now` begins), each server's oldest first,
 * a block per transaction. The horizon is recorded first: reads widen their ends to whole minutes before it
 * (kept.rowsFrom).
 */
export async function compactColdEvents(
  store: Store,
  hotMs: number,
  now: number,
  keepGoing: () => boolean = () => true,
): Promise<Compacted> {
  if (hotMs < MIN_HOT_WINDOW_MS) throw new RangeError(`a hot window of ${hotMs} ms is shorter than two hours`);
  // Another process's pass (a later clock, a shorter window) may have recorded a later horizon: packing up to it too
  // keeps every block before the recorded one, which reads trust (kept.rowsFrom).
  const before = await store.transaction((tx) => recordColdBefore(tx, bucketStart(now - hotMs, HOUR_MS)));
  const done: Compacted = { events: 0, blocks: 0, discarded: 0, stopped: false };
  let retries = 0;
  // A pass packs one server's old hours before the next server's; when it loses a block (most often to another
  // server's pass packing the same one) it leaves that server to the other and takes the oldest of the servers it has
  // not lost one of. So passes at once spread over the servers instead of all packing one block for one of them to
  // swap in; once only the servers it left are left, it goes back to them.
  const yielded = new Set<string>();
  let current: string | null = null;
  for (;;) {
    if (!keepGoing()) return { ...done, stopped: true };
    const candidate = await nextCandidate(store, before, current, yielded);
    if (candidate === null) return done;
    const swapped = await swapIn(store, candidate, before);
    if (swapped === 'queued') return { ...done, stopped: true };
    if (swapped === 'changed') {
      done.discarded++;
      yielded.add(candidate.server);
      current = null;
      if (++retries > RETRIES) return { ...done, stopped: true };
      continue;
    }
    retries = 0;
    current = candidate.server;
    done.events += candidate.rows.length;
    done.blocks++;
    // Between transactions, so that ingest batches get the writer in turn.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The current server's next block, else the oldest of a server not yielded, else the oldest of any. */
async function nextCandidate(
  store: Store,
  before: number,
  current: string | null,
  yielded: Set<string>,
): Promise<ColdCandidate | null> {
  const ofCurrent = current === null ? null : await oldestColdRows(store, before, { only: current });
  if (ofCurrent !== null) return ofCurrent;
  const elsewhere = await oldestColdRows(store, before, { avoid: [...yielded] });
  if (elsewhere !== null || yielded.size === 0) return elsewhere;
  yielded.clear();
  return oldestColdRows(store, before);
}

/**
 * Packs the candidate, then in one transaction, beside no fold and no replay of the gate partitions its rows are of,
 * reads the same rows again: if they changed meanwhile (a verdict moved, a late event came) nothing is written; if the
 * fold has not counted one of them yet, nothing is written either (what is packed is final); else the block goes in
 * and the rows out.
 */
async function swapIn(
  store: Store,
  candidate: ColdCandidate,
  before: number,
): Promise<'swapped' | 'changed' | 'queued'> {
  const events = candidate.rows;
  const data = await packColdEvents(events, await linesOfCandidate(store, events));
  const partitions = [...new Set(events.map((event) => JSON.stringify([event.client, event.server])))];
  await ensureEventDays(store, [eventDay(candidate.hour)]);
  return store.transaction(async (tx) => {
    await waitForFoldLock(tx);
    await lockKeys(tx, LOCK_CLASS.gatePartition, partitions);
    await lockKeys(tx, LOCK_CLASS.coldHour, [coldHourKey(candidate.server, candidate.hour)]);
    const now = await oldestColdRows(tx, before, { only: candidate.server });
    if (now === null || !sameRows(now, candidate)) return 'changed';
    const seqs = candidate.rows.map((row) => row.seq);
    if ((await stillQueued(tx, seqs)).size > 0) return 'queued';
    // The denial audit of the block's identities moves its base up to the horizon first (ADR 15), as retention moves
    // it before deleting: a later full audit of one starts there, never from events in a block. Only these: an
    // identity with no event in the block keeps its base, already past every block of its own events. One the fold
    // has yet to audit waits for it (the fold audits them when idle).
    const identities = [...new Set(events.flatMap((event) => (event.identity === null ? [] : [event.identity])))];
    if (await auditsPending(tx, identities)) return 'queued';
    await rebaseDenialAudit(tx, before, identities.length, identities);
    // The gate's checkpoints step through the block's events: a replay of their partitions starts there (ADR 21).
    await stepCheckpoints(tx, events);
    await insertColdBlock(tx, candidate.server, candidate.hour, events, data);
    await deleteEventRows(
      tx,
      candidate.rows.map((row) => ({ seq: row.seq, block: row.bodyBlock })),
    );
    return 'swapped';
  });
}

/**
 * Whether two reads found the same rows, value by value. Every value is a number, a string or null (the identity is
 * read as text), which `===` compares as their JSON did; comparing them in place builds no ~4 MB JSON per read, which
 * held the event loop ~40 ms a block (profiled at 10M events a day) and was garbage straight after.
 */
function sameRows(a: ColdCandidate, b: ColdCandidate): boolean {
  return (
    a.server === b.server &&
    a.hour === b.hour &&
    a.rows.length === b.rows.length &&
    a.rows.every((row, r) => sameValues(row, b.rows[r] as object))
  );
}

function sameValues(a: object, b: object): boolean {
  const keys = Object.keys(a);
  const values = a as Record<string, unknown>;
  const others = b as Record<string, unknown>;
  return keys.length === Object.keys(b).length && keys.every((key) => values[key] === others[key]);
}
