import { DAY_MS } from '../shared/analysis/time-buckets.ts';

/**
 * The day an event belongs to, in days since the epoch (UTC): line blocks are cut where it changes, and on PostgreSQL
 * it is the partition of `events` and `event_bodies` that retention drops whole (docs/adr/0009-retention.md,
 * db/queries/day-partitions.ts).
 */
export function eventDay(ts: number): number {
  return Math.floor(ts / DAY_MS);
}

/**
 * PostgreSQL numbers a day's line blocks from day * BLOCKS_PER_DAY, so that `event_bodies` is partitioned by its own
 * key (a range of ids per day) and a read's join on the id finds the one partition to look in.
 */
export const BLOCKS_PER_DAY = 2 ** 32;

/** The id of a block of `day` whose number drawn from the sequence is `drawn` (below BLOCKS_PER_DAY). */
export function dayBlockId(day: number, drawn: number): number {
  return day * BLOCKS_PER_DAY + (drawn % BLOCKS_PER_DAY);
}
