/**
 * The dashboard's reads of single events over the cold bench's hours (bench/cold-blocks.ts), through real HTTP
 * (app.request) as bench/reads.ts times the others: timed while the hours are rows, and again, the same requests,
 * once compaction has packed them (docs/adr/0021-cold-events-in-blocks.md, "Who reads single events in cold time"),
 * so that each pair differs by the form the events are stored in alone.
 */
import { createApp } from '../api/app.ts';
import { DEFAULT_CONFIG } from '../api/env.ts';
import { encodeCursor } from '../api/services/events.ts';
import type { Store } from '../db/runner.ts';
import { resolveRange } from '../web/time-range.ts';
import { answerOf, printTable, quantile, sample } from './support.ts';

/** A read as the dashboard asks it. */
export interface HourRead {
  label: string;
  path: string;
}

const SAMPLES = 20;
/** The server of the server-scoped reads, one of the generated traffic's 25. */
const SERVER = 'server-3';
/** The events screen's page (web/queries/events.ts). */
const PAGE = 50;

/**
 * The reads, at `now`, of the hour ending at `end`: the events list as its screen pages it (a day's window, 50 a
 * page): the fleet's and a server's newest page and the page after a cursor in the middle of the hour, the failures;
 * then an event of the middle of the hour opened from the list (its time and server given), the top storm's attempts
 * and the most sent identity's sends, their ids read while the hour is rows.
 */
export async function hourReads(store: Store, end: number, now: number): Promise<HourRead[]> {
  const app = appAt(store, now);
  const { from, to } = resolveRange({ preset: '24h' }, now);
  const day = `from=${from}&to=${to}`;
  const list = (query: string) => `/api/v1/events?${day}&limit=${PAGE}${query}`;
  const midHour = `&cursor=${encodeCursor({ ts: end - 1_800_000, seq: 0 })}`;
  const [event] = parsed<{ events: { id: string; ts: string; server: string }[] }>(
    await answerOf(app, list(midHour)),
  ).events;
  const [storm] = parsed<{ storms: { id: string }[] }>(
    await answerOf(app, `/api/v1/storms?${day}&sort=rank&limit=1`),
  ).storms;
  const [identity] = parsed<{ identities: { identity: string }[] }>(
    await answerOf(app, `/api/v1/identities?${day}&limit=1`),
  ).identities;
  const reads: HourRead[] = [
    { label: 'events, the fleet, newest page', path: list('') },
    { label: 'events, the fleet, the page after mid-hour', path: list(midHour) },
    { label: 'events, a server, newest page', path: list(`&server=${SERVER}`) },
    { label: 'events, a server, the page after mid-hour', path: list(`&server=${SERVER}${midHour}`) },
    { label: 'events, failures, newest page', path: list('&failed=true') },
  ];
  if (event !== undefined) {
    const hints = `ts=${Date.parse(event.ts)}&server=${encodeURIComponent(event.server)}`;
    reads.push({ label: 'an event, from the list', path: `/api/v1/events/${encodeURIComponent(event.id)}?${hints}` });
  }
  if (storm !== undefined) {
    reads.push({ label: "the top storm's attempts", path: `/api/v1/storms/${encodeURIComponent(storm.id)}` });
  }
  if (identity !== undefined) {
    const path = `/api/v1/identities/${encodeURIComponent(identity.identity)}?${day}`;
    reads.push({ label: "the most sent identity's sends, 24 h", path });
  }
  return reads;
}

/** Each read's times (ms, sorted), in the order given. */
export async function timeHourReads(store: Store, now: number, reads: readonly HourRead[]): Promise<number[][]> {
  const app = appAt(store, now);
  const times: number[][] = [];
  for (const read of reads) {
    times.push(
      await sample(async () => {
        await answerOf(app, read.path);
      }, SAMPLES),
    );
  }
  return times;
}

/** The reads' times over rows and over blocks side by side, p50 and p95, and the ratio of the medians. */
export function printHourReads(reads: readonly HourRead[], rows: number[][], blocks: number[][]): void {
  const at = (times: number[] | undefined, q: number) => quantile(times ?? [], q);
  printTable(
    ['read (ms)', 'rows p50', 'rows p95', 'blocks p50', 'blocks p95', 'blocks/rows p50'],
    reads.map((read, i) => [
      read.label,
      at(rows[i], 0.5).toFixed(1),
      at(rows[i], 0.95).toFixed(1),
      at(blocks[i], 0.5).toFixed(1),
      at(blocks[i], 0.95).toFixed(1),
      `${(at(blocks[i], 0.5) / at(rows[i], 0.5)).toFixed(1)}x`,
    ]),
  );
}

function appAt(store: Store, now: number) {
  return createApp({ store, clock: () => now, config: DEFAULT_CONFIG });
}

function parsed<T>(text: string): T {
  return JSON.parse(text) as T;
}
