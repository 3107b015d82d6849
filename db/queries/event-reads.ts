import type { SqlRunner } from '../runner.ts';
import { withBodies } from './bodies.ts';
import type { ColdRange } from './cold-events.ts';
import { coldEventById, coldPartners, countColdEvents, type EventHints, newestColdEvents } from './cold-reads.ts';
import {
  afterCursor,
  countHotListed,
  type EventCursor,
  getHotEvent,
  hotListedRows,
  hotPartnerRecords,
  type ListFilter,
  listedBy,
  newestFirst,
  pairKey,
  type StoredEventRow,
} from './events.ts';

/**
 * The single events an operator drills into, over both forms an event is stored in: the rows of `events` and, past
 * the hot window, the cold blocks (docs/adr/0021-cold-events-in-blocks.md). Each read asks the rows first, as it did
 * before blocks, and the blocks for what the rows cannot answer, so that a compaction takes nothing out of them.
 */

/** Which blocks can hold a list's events after the cursor: its server's, in its range, none past the cursor. */
function listRange(filter: ListFilter, cursor: EventCursor | null): ColdRange {
  const to = cursor === null ? filter.to : Math.min(filter.to ?? Number.POSITIVE_INFINITY, cursor.ts + 1);
  return { server: filter.server, from: filter.from, to };
}

/** A page of the list, and the events of the cold blocks read whole for it, where its records' partners mostly are. */
export interface ListedPage {
  rows: StoredEventRow[];
  /** Every event of the blocks the page's cold events are in (partnerRecords looks there before reading blocks). */
  near: StoredEventRow[];
}

/**
 * A page of the list, newest first after `cursor`: its rows and its cold events merged in the list's order. A full
 * page of rows bounds the cold read by its oldest row, so a page in hot time reads no block, and no line is read for
 * a row or an event the merge leaves out.
 */
export async function listedPage(
  db: SqlRunner,
  filter: ListFilter,
  cursor: EventCursor | null,
  limit: number,
): Promise<ListedPage> {
  const hot = await hotListedRows(db, filter, cursor, limit);
  const oldest = hot.length === limit ? hot.at(-1) : undefined;
  const range = listRange(filter, cursor);
  if (oldest !== undefined) range.from = Math.max(range.from ?? 0, oldest.ts);
  const listed = listedBy(filter);
  const cold = await newestColdEvents(db, range, (event) => listed(event) && afterCursor(event, cursor), limit);
  const rows = new Set<object>(hot);
  const hotKept = [...hot, ...cold.events]
    .sort(newestFirst)
    .slice(0, limit)
    .filter((event) => rows.has(event)).length;
  const kept = [...(await withBodies(db, hot.slice(0, hotKept))), ...cold.events.slice(0, limit - hotKept)];
  return { rows: kept.sort(newestFirst), near: cold.inflated };
}

/** The rows of a page of the list (listedPage). */
export async function listEvents(
  db: SqlRunner,
  filter: ListFilter,
  cursor: EventCursor | null,
  limit: number,
): Promise<StoredEventRow[]> {
  return (await listedPage(db, filter, cursor, limit)).rows;
}

/**
 * How many rows the list holds, rows and cold events, up to `cap` (past it: `cap + 1`); null where countHotListed
 * makes no count, or the cold events' count would read too many blocks (countColdEvents).
 */
export async function countListed(db: SqlRunner, filter: ListFilter, cap: number): Promise<number | null> {
  const hot = await countHotListed(db, filter, cap);
  if (hot === null || hot > cap) return hot;
  const cold = await countColdEvents(db, listRange(filter, null), listedBy(filter), cap + 1 - hot);
  return cold === null ? null : hot + cold;
}

/** An event looked up by id, and whether every place it could be was searched (coldEventById's ID_SCAN_BLOCKS). */
export interface EventLookup {
  event: StoredEventRow | null;
  searchedAll: boolean;
}

/** An event by id: its row, else a cold event found as coldEventById finds it (`hints` narrow the blocks read). */
export async function getEvent(db: SqlRunner, eventId: string, hints: EventHints = {}): Promise<EventLookup> {
  const hot = await getHotEvent(db, eventId);
  if (hot !== null) return { event: hot, searchedAll: true };
  return coldEventById(db, eventId, hints);
}

/**
 * The other records of the given records' requests (hotPartnerRecords); the partners that are no row looked for
 * among `near` (events already read: listedPage's), then in the cold blocks near the naming record's time
 * (coldPartners).
 */
export async function partnerRecords(
  db: SqlRunner,
  records: readonly Pick<StoredEventRow, 'eventId' | 'partner' | 'ts' | 'server'>[],
  near: readonly StoredEventRow[] = [],
): Promise<StoredEventRow[]> {
  const hot = await hotPartnerRecords(db, records);
  const fromHot = new Set(hot.map(partnerOf));
  const unfound = records.filter((record) => record.partner !== null && !fromHot.has(namedBy(record)));
  if (unfound.length === 0) return hot;
  const wanted = new Set(unfound.map(namedBy));
  const nearby = near.filter((event) => wanted.has(partnerOf(event)));
  const fromNear = new Set(nearby.map(partnerOf));
  const missing = unfound
    .filter((record) => !fromNear.has(namedBy(record)))
    .map((record) => ({ id: record.partner ?? '', namedBy: record.eventId, ts: record.ts, server: record.server }));
  return [...hot, ...nearby, ...(missing.length === 0 ? [] : await coldPartners(db, missing))];
}

/** The pair a record names: its partner's id and its own (pairKey). */
function namedBy(record: Pick<StoredEventRow, 'eventId' | 'partner'>): string {
  return pairKey(record.partner ?? '', record.eventId);
}

/** The pair a partner record answers: its own id and the id it names back. */
function partnerOf(record: Pick<StoredEventRow, 'eventId' | 'partner'>): string {
  return pairKey(record.eventId, record.partner ?? '');
}
