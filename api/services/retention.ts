import { eventDay } from '../../db/event-days.ts';
import { coldBefore, deleteColdBlocksBefore } from '../../db/queries/cold-events.ts';
import { dropCountMonthsBefore, dropEventDaysBefore } from '../../db/queries/day-partitions.ts';
import { auditPendingDenials, rebaseDenialAudit } from '../../db/queries/denial-audit.ts';
import { waitForFoldLock } from '../../db/queries/locks.ts';
import {
  anyEventBefore,
  deleteCountsBefore,
  deleteEventsBefore,
  EVENTS_PER_DELETE,
  releaseFreePages,
} from '../../db/queries/retention.ts';
import { getSetting, raiseSetting } from '../../db/queries/settings.ts';
import type { SqlRunner, Store } from '../../db/runner.ts';
import { bucketStart, DAY_MS, HOUR_MS } from '../../shared/analysis/time-buckets.ts';

/** How long raw events and counts are kept (`--retain-events`, `--retain-counts`). */
export interface Horizons {
  eventsMs: number;
  countsMs: number;
}

export const DEFAULT_HORIZONS: Horizons = { eventsMs: 30 * DAY_MS, countsMs: 400 * DAY_MS };

/**
 * Where the store's kept data begins: raw events (and counts finer than an hour) from, hour counts from; and where
 * the events still rows begin, those before packed in cold blocks (api/services/compaction.ts; null: none packed).
 */
export interface Kept {
  eventsFrom: number | null;
  countsFrom: number | null;
  rowsFrom: number | null;
}

const EVENTS_KEY = 'retention_events_from';
const COUNTS_KEY = 'retention_counts_from';

/** What the store keeps, as the last retention and compaction passes declared it (null: nothing was ever moved). */
export async function keptData(db: SqlRunner): Promise<Kept> {
  const [events, counts, rowsFrom] = await Promise.all([
    getSetting(db, EVENTS_KEY),
    getSetting(db, COUNTS_KEY),
    coldBefore(db),
  ]);
  return {
    eventsFrom: events === null ? null : Number(events),
    countsFrom: counts === null ? null : Number(counts),
    rowsFrom,
  };
}

/**
 * One retention pass: everything before the horizons is deleted, in short transactions. The events horizon is
 * rounded down to the day, so that PostgreSQL drops whole day partitions of events and of the counts finer than an hour
 * (db/queries/day-partitions.ts) where SQLite deletes rows, and both keep the same events; the counts horizon to the
 * hour, so that whole hours of counts stay: PostgreSQL drops the months of hour counts before it and deletes the rows
 * of the month it cuts. The new horizons are recorded first: from then on reads take the older part of
 * a range from the hour counts alone, so a range never shows a half-deleted hour. A pass that stops half way (a
 * crash) leaves only what is past the horizon to delete again. Answers how many events and count rows went.
 */
export async function applyRetention(
  store: Store,
  horizons: Horizons,
  now: number,
  keepGoing: () => boolean = () => true,
): Promise<{ events: number; counts: number }> {
  // Never back: another server on the same database (a later clock, a shorter horizon) may have moved them further.
  const { eventsFrom, countsFrom } = await store.transaction(async (tx) => ({
    eventsFrom: await raiseSetting(tx, EVENTS_KEY, floorDay(now - horizons.eventsMs)),
    countsFrom: await raiseSetting(tx, COUNTS_KEY, floorHour(now - horizons.countsMs)),
  }));
  // With no event before the horizon there is nothing to delete, so no audit to re-base: a base at the old horizon
  // (or none, the first event) reads the same events as one moved up. Without this check every pass re-based every
  // identity audited since the last, tens of thousands in a 10-minute soak, holding ingest back meanwhile.
  const deleting = await anyEventBefore(store, eventsFrom);
  if (deleting && !(await rebaseDenials(store, eventsFrom, keepGoing))) return { events: 0, counts: 0 };
  const days = await dropEventDaysBefore(store, eventDay(eventsFrom));
  let events = days.events;
  for (;;) {
    if (!keepGoing()) return { events, counts: days.counts };
    const deleted = await store.transaction((tx) => deleteEventsBefore(tx, eventsFrom, EVENTS_PER_DELETE));
    events += deleted;
    if (deleted < EVENTS_PER_DELETE) break;
    // Between transactions, so that ingest batches get the writer in turn.
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Cold blocks of the hours past the horizon (SQLite; PostgreSQL dropped them with their days above).
  events += await store.transaction((tx) => deleteColdBlocksBefore(tx, eventsFrom));
  // A month of hour counts goes whole once both horizons are past it: not before the events', whose kept days'
  // counts can still move (a late verdict), and never its partition missing under them.
  const months = await dropCountMonthsBefore(store, eventDay(Math.min(eventsFrom, countsFrom)));
  const counts = days.counts + months + (await deleteCountsBefore(store, eventsFrom, countsFrom));
  if (events + counts > 0) await releaseFreePages(store);
  return { events, counts };
}

/**
 * Moves the denial audit's bases up to the events horizon before the events before it go (ADR 15), a batch of
 * identities per transaction beside no fold (the audit's rows and checkpoints are the fold's): a full audit after
 * then starts from the decisions standing at the horizon, not from nothing. Identities still pending their first
 * audit get it first. False when stopped half way: the events are not deleted then.
 */
async function rebaseDenials(store: Store, horizon: number, keepGoing: () => boolean): Promise<boolean> {
  for (;;) {
    if (!keepGoing()) return false;
    const moved = await store.transaction(async (tx) => {
      await waitForFoldLock(tx);
      return (await auditPendingDenials(tx)) + (await rebaseDenialAudit(tx, horizon));
    });
    if (moved === 0) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function floorHour(ms: number): number {
  return Math.max(0, bucketStart(ms, HOUR_MS));
}

function floorDay(ms: number): number {
  return Math.max(0, bucketStart(ms, DAY_MS));
}
