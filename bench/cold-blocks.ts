/**
 * What cold events weigh once the product's own compaction has packed them (issue 41 item 1,
 * docs/adr/0021-cold-events-in-blocks.md): a store filled at the density of 10M events a day (BENCH_COLD_HOURS hours
 * of it, default 1), measured, then compacted by `compactColdEvents` with the shortest hot window from a clock two
 * hours past the last event (every event packed), and measured again. Printed: each table's and index's bytes per
 * event before and after, the compaction's CPU per event, events a second and peak RSS, the steady state of a day
 * (48 h hot of 30 days kept) from the parts measured on that store, and the dashboard's reads of single events over
 * the last hour, as rows before compaction and as blocks after (bench/cold-reads.ts). ADR 21's comparison of block variants (deflate,
 * lines left in event_bodies, rows a block) packed every event eight times over: it is in that ADR and its commit.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type Compacted, compactColdEvents, MIN_HOT_WINDOW_MS } from '../api/services/compaction.ts';
import { DEFAULT_HORIZONS } from '../api/services/retention.ts';
import { openStore, type StoreConfig } from '../db/store.ts';
import { hourReads, printHourReads, timeHourReads } from './cold-reads.ts';
import { fillStore, SPACING_AT_10M_A_DAY_MS } from './fill.ts';
import { storeParts } from './store-bytes.ts';
import { fmt, printTable } from './support.ts';

const HOURS = Number(process.env.BENCH_COLD_HOURS ?? 1);
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const START = Date.parse('2026-11-02T00:00:00Z');
/** The steady state is figured with the hot window issue 41 asks for, 48 h, and `--retain-events`' default. */
const HOT_WINDOW_MS = 48 * HOUR_MS;
const RETAIN_EVENTS_MS = DEFAULT_HORIZONS.eventsMs;
/** How often the bench process's RSS is read while it compacts: each block's packing is one synchronous step. */
const RSS_SAMPLE_MS = 20;

/** The tables a compaction moves events between; every other table is "the rest of the store". */
const MOVED = ['cold_blocks', 'events', 'event_bodies'];

export async function benchColdBlocks(config: StoreConfig): Promise<void> {
  const events = Math.round((HOURS * HOUR_MS) / SPACING_AT_10M_A_DAY_MS);
  const filling = await openStore(config);
  const filled = await fillStore(filling, events, START, SPACING_AT_10M_A_DAY_MS);
  await filling.close();
  console.log(
    `cold blocks: ${fmt(events)} events over ${HOURS} h (10M a day's density) ingested and folded in ${filled.seconds.toFixed(0)} s; NDJSON ${(filled.ndjsonBytes / events).toFixed(1)} B/event`,
  );
  const before = storeParts(config.dataDir);
  const store = await openStore(config);
  const end = START + Math.ceil(HOURS) * HOUR_MS;
  const now = end + MIN_HOT_WINDOW_MS;
  const reads = await hourReads(store, end, now);
  const overRows = await timeHourReads(store, now, reads);
  const compaction = await measuredCompaction(() => compactColdEvents(store, MIN_HOT_WINDOW_MS, now));
  const overBlocks = await timeHourReads(store, now, reads);
  await store.close();
  const after = storeParts(config.dataDir);
  const { done } = compaction;
  if (done.stopped || done.events !== events) {
    throw new Error(`compaction packed ${done.events} of ${events} events (stopped: ${done.stopped})`);
  }
  console.log(
    `compaction (api/services/compaction.ts, in this process, its SQLite writer thread included): ${fmt(done.events)} events into ${fmt(done.blocks)} blocks in ${compaction.seconds.toFixed(1)} s: ${fmt(done.events / compaction.seconds)} events/s, CPU ${((compaction.cpuSeconds * 1e6) / done.events).toFixed(1)} µs/event; RSS ${mb(compaction.rssBefore)} MB before (the process had filled the store and timed the reads of its rows), peak ${mb(compaction.peakRss)} MB while it ran (sampled every ${RSS_SAMPLE_MS} ms); the event loop waited up to ${compaction.loopDelayMaxMs.toFixed(0)} ms (p99 ${compaction.loopDelayP99Ms.toFixed(0)} ms)`,
  );
  reportParts(before, after, events);
  console.log(
    `the dashboard's reads of the last hour through HTTP (bench/cold-reads.ts), ms, over its rows before compaction and its blocks after:`,
  );
  printHourReads(reads, overRows, overBlocks);
}

interface MeasuredCompaction {
  done: Compacted;
  seconds: number;
  /** User and system CPU of the whole process, every thread (the SQLite writer's too). */
  cpuSeconds: number;
  rssBefore: number;
  peakRss: number;
  /**
   * The longest the event loop waited, and its 99th percentile (ms): packing a block is synchronous on the thread
   * that serves the API (brotli), so this is how long a request could wait behind a compaction.
   */
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
}

async function measuredCompaction(compact: () => Promise<Compacted>): Promise<MeasuredCompaction> {
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, RSS_SAMPLE_MS);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const cpu = process.cpuUsage();
  const began = performance.now();
  try {
    const done = await compact();
    const seconds = (performance.now() - began) / 1000;
    const used = process.cpuUsage(cpu);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    return {
      done,
      seconds,
      cpuSeconds: (used.user + used.system) / 1e6,
      rssBefore,
      peakRss,
      loopDelayMaxMs: loopDelay.max / 1e6,
      loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    };
  } finally {
    clearInterval(sampler);
    loopDelay.disable();
  }
}

type Parts = ReturnType<typeof storeParts>;

/**
 * Bytes per event of each part of the moved tables, before and after, then the rest of the store; and a day's
 * steady state from them: the hot share at what a row, its indexes and its line weighed before, the cold share at
 * what the blocks and their index weigh, plus the rest of the store after. Free pages are shown but left out of the
 * day: the pages compaction freed are those the next hours' rows fill.
 */
function reportParts(before: Parts, after: Parts, events: number): void {
  const b = (bytes: number) => (bytes / events).toFixed(1);
  const partBytes = (parts: Parts, name: string) => parts.parts.find((part) => part.name === name)?.bytes ?? 0;
  const tableBytes = (parts: Parts, table: string) =>
    parts.parts.filter((part) => part.table === table).reduce((n, part) => n + part.bytes, 0);
  const rest = (parts: Parts) => parts.parts.filter((part) => !MOVED.includes(part.table));
  const restBytes = (parts: Parts) => rest(parts).reduce((n, part) => n + part.bytes, 0);
  const movedNames = [...before.parts, ...after.parts]
    .filter((part) => MOVED.includes(part.table))
    .sort((x, y) => MOVED.indexOf(x.table) - MOVED.indexOf(y.table) || x.name.localeCompare(y.name))
    .map((part): [string, string] => [part.name, part.table]);
  const moved = [...new Map(movedNames)];
  console.log('the store, B/event, before and after compaction (dbstat, after a checkpoint, without VACUUM):');
  const largestRest = rest(after).slice(0, 8);
  printTable(
    ['part', 'of table', 'before', 'after'],
    [
      ...moved.map(([name, table]) => [name, table, b(partBytes(before, name)), b(partBytes(after, name))]),
      ['the rest of the store', '', b(restBytes(before)), b(restBytes(after))],
      ...largestRest.map((part) => [
        `  ${part.name}`,
        part.table,
        b(partBytes(before, part.name)),
        b(partBytes(after, part.name)),
      ]),
      ['free pages', '', b(before.free ?? 0), b(after.free ?? 0)],
      ['the file', '', b(before.total), b(after.total)],
    ],
  );
  const hotShare = HOT_WINDOW_MS / RETAIN_EVENTS_MS;
  const hot = (tableBytes(before, 'events') + tableBytes(before, 'event_bodies')) / events;
  const cold =
    (tableBytes(after, 'cold_blocks') + tableBytes(after, 'events') + tableBytes(after, 'event_bodies')) / events;
  const others = restBytes(after) / events;
  const day = hotShare * hot + (1 - hotShare) * cold + others;
  console.log(
    `a day at steady state, ${HOT_WINDOW_MS / HOUR_MS} h hot of ${RETAIN_EVENTS_MS / DAY_MS} days kept: ${day.toFixed(1)} B/event = ${(hotShare * 100).toFixed(1)} % × ${hot.toFixed(1)} (a hot row, its indexes and its line) + ${((1 - hotShare) * 100).toFixed(1)} % × ${cold.toFixed(1)} (compacted: the blocks and what the moved tables keep) + ${others.toFixed(1)} (the rest of the store, after)`,
  );
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
