import { sql } from 'drizzle-orm';
import { openStore, type StoreConfig } from '../db/store.ts';
import { fillStore, SPACING_AT_10M_A_DAY_MS } from './fill.ts';
import { syntheticLines } from './generate.ts';
import { type ServerProcess, spawnServer } from './server-process.ts';

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
/** How often a line of figures is printed (default every minute). */
const REPORT_EVERY = Number(process.env.BENCH_SOAK_REPORT_SECONDS ?? 60);
/** The fixed load: events shipped per second (one batch), and dashboard reads per second (0: none). */
const EVENTS_PER_SECOND = Number(process.env.BENCH_SOAK_RATE ?? 1000);
const READS_PER_SECOND = Number(process.env.BENCH_SOAK_READS ?? 5);
const READS = ['/api/v1/summary', '/api/v1/timeseries', '/api/v1/servers', '/api/v1/identities', '/api/v1/storms'];
/** The goal for the server's resident set while it ingests (issue 39): the soak says whether it held. */
const RSS_GOAL_MB = 300;
/**
 * Events stored three days back before the server starts (0: none): past the default hot window, so the server packs
 * them while the soak's load goes on, and the soak reads its memory while ingesting and compacting (issue 41).
 */
const BACKLOG = Number(process.env.BENCH_SOAK_BACKLOG ?? 0);
const BACKLOG_AGO_MS = 72 * 3_600_000;

/** One store's soak in figures (MB, and per second). */
export interface SoakResult {
  /** The highest resident set sampled while the load ran, and the kernel's own high-water mark (start-up included). */
  peakRssMb: number;
  hwmMb: number;
  /** The highest anonymous part sampled: the JavaScript heaps, SQLite's caches, buffers. */
  peakAnonMb: number;
  /**
   * The highest resident set less the store's pages mapped for reads (ServerProcess.storePages): the server's own
   * memory, node's file pages included. Equal to the RSS peak on PostgreSQL.
   */
  peakOwnMb: number;
  /** The median resident set over the soak's second half, once caches and heaps have grown to what they hold. */
  steadyRssMb: number;
  /** Events acknowledged per second of the soak (the load asks for EVENTS_PER_SECOND; less means it fell behind). */
  eventsPerSecond: number;
  readP95Ms: number;
  refused: number;
}

/** One second's reading of the server's memory, bytes. */
interface Sample {
  rss: number;
  anon: number;
  file: number;
  store: number;
  shmem: number;
}

/**
 * The soak: a server in its own process under a fixed mixed load, a batch of BENCH_SOAK_RATE events a second and
 * BENCH_SOAK_READS of a dashboard's reads (each on its own clock, so slow reads do not slow the shipping), for
 * BENCH_SOAK_SECONDS (default 10 minutes). Its resident set is read every second, split into anonymous memory (the
 * JavaScript heaps, SQLite's caches, buffers), file pages (node itself, and the store's pages if SQLite's reads map
 * them, shown apart) and shared memory (SQLite's WAL index); every BENCH_SOAK_REPORT_SECONDS it prints each one's peak
 * and the reads' p50 and p95: all must stay flat. Events carry current times, so the reads' default window (the last
 * 24 h) holds them.
 */
export async function benchSoak(label: string, config: StoreConfig): Promise<SoakResult> {
  if (BACKLOG > 0) await fillBacklog(config);
  const server = await spawnServer(config);
  console.log(`soak ${label}: ${SECONDS} s at ${EVENTS_PER_SECOND} events/s and ${READS_PER_SECOND} reads/s`);
  console.log(
    '  minute  RSS MB  anon MB  file MB  of it store MB  shm MB  events/s  read p50 ms  read p95 ms  refused',
  );
  const load = new SoakLoad(server.url);
  const samples: Sample[] = [];
  const started = performance.now();
  try {
    const shipping = load.ship(started);
    const reading = load.read(started);
    let windowStart = 0;
    let acknowledged = 0;
    for (let second = 1; second <= SECONDS; second++) {
      const wait = started + second * 1000 - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      samples.push({ rss: server.rss(), ...server.rssParts(), store: server.storePages() });
      if (second % REPORT_EVERY === 0 || second === SECONDS) {
        const shipped = load.acknowledged - acknowledged;
        printWindow(second, samples.slice(windowStart), shipped / (second - windowStart), load);
        windowStart = second;
        acknowledged = load.acknowledged;
      }
    }
    load.stop();
    await Promise.all([shipping, reading]);
    const result = summarise(server, samples, load, (performance.now() - started) / 1000);
    console.log(
      `soak ${label}: peak RSS ${result.peakRssMb} MB (VmHWM ${result.hwmMb}; anonymous ${result.peakAnonMb}; ` +
        `less the store's mapped pages ${result.peakOwnMb}), steady ${result.steadyRssMb} MB, ` +
        `${Math.round(result.eventsPerSecond)} events/s, reads p95 ${result.readP95Ms.toFixed(0)} ms, ` +
        `${result.refused} refused; goal ${RSS_GOAL_MB} MB ${result.peakRssMb <= RSS_GOAL_MB ? 'held' : 'MISSED'}`,
    );
    return result;
  } finally {
    load.stop();
    await server.stop();
    if (BACKLOG > 0) await reportPacked(config);
  }
}

async function fillBacklog(config: StoreConfig): Promise<void> {
  const store = await openStore(config);
  try {
    const filled = await fillStore(store, BACKLOG, Date.now() - BACKLOG_AGO_MS, SPACING_AT_10M_A_DAY_MS);
    console.log(
      `soak backlog: ${BACKLOG} events three days back, stored and counted in ${filled.seconds.toFixed(0)} s`,
    );
  } finally {
    await store.close();
  }
}

/** How much of the backlog the server packed while the soak ran. */
async function reportPacked(config: StoreConfig): Promise<void> {
  const store = await openStore(config);
  try {
    const [row] = await store.all<{ packed: number | string | null }>(sql`SELECT sum(rows) AS packed FROM cold_blocks`);
    console.log(`soak backlog: ${Number(row?.packed ?? 0)} of its ${BACKLOG} events packed while the soak ran`);
  } finally {
    await store.close();
  }
}

/** The soak's two clients: a shipper posting a batch a second and a dashboard reading, each on its own clock. */
class SoakLoad {
  acknowledged = 0;
  refused = 0;
  private latencies: number[] = [];
  private allLatencies: number[] = [];
  private stopped = false;
  private readonly lines = syntheticLines(SECONDS * EVENTS_PER_SECOND, 7, Date.now(), 1000 / EVENTS_PER_SECOND);

  constructor(private readonly url: string) {}

  stop(): void {
    this.stopped = true;
  }

  /** One batch per second, sent when due (at once if the last one answered late), until stopped or spent. */
  async ship(started: number): Promise<void> {
    for (let second = 0; !this.stopped; second++) {
      const batch: string[] = [];
      for (let next = this.lines.next(); !next.done; next = this.lines.next()) {
        batch.push(next.value);
        if (batch.length === EVENTS_PER_SECOND) break;
      }
      if (batch.length === 0) return;
      const response = await fetch(`${this.url}/api/v1/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: `${batch.join('\n')}\n`,
      });
      if (response.status === 200) this.acknowledged += ((await response.json()) as { accepted: number }).accepted;
      else {
        this.refused++;
        await response.arrayBuffer();
      }
      await untilDue(started + (second + 1) * 1000, () => this.stopped);
    }
  }

  /** READS_PER_SECOND reads a second, one at a time, as a dashboard left open polls. */
  async read(started: number): Promise<void> {
    for (let n = 0; !this.stopped && READS_PER_SECOND > 0; n++) {
      const began = performance.now();
      const response = await fetch(`${this.url}${READS[n % READS.length]}`);
      await response.arrayBuffer();
      if (response.status !== 200) this.refused++;
      const ms = performance.now() - began;
      this.latencies.push(ms);
      this.allLatencies.push(ms);
      await untilDue(started + ((n + 1) * 1000) / READS_PER_SECOND, () => this.stopped);
    }
  }

  /** The reads' latencies since the last call, and the soak's whole list when `all`. */
  takeLatencies(all = false): number[] {
    if (all) return this.allLatencies;
    const taken = this.latencies;
    this.latencies = [];
    return taken;
  }
}

async function untilDue(due: number, stopped: () => boolean): Promise<void> {
  const wait = due - performance.now();
  if (wait > 0 && !stopped()) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** A window's line: each column is its own peak over the window (the parts of one moment need not add up). */
function printWindow(second: number, window: readonly Sample[], eventsPerSecond: number, load: SoakLoad): void {
  const peak = (part: keyof Sample, width: number) =>
    (Math.max(...window.map((sample) => sample[part])) / 2 ** 20).toFixed(0).padStart(width);
  const sorted = load.takeLatencies().sort((a, b) => a - b);
  console.log(
    `  ${(second / 60).toFixed(1).padStart(6)}  ${peak('rss', 6)}  ${peak('anon', 7)}  ${peak('file', 7)}  ` +
      `${peak('store', 14)}  ${peak('shmem', 6)}  ${eventsPerSecond.toFixed(0).padStart(8)}  ` +
      `${quantile(sorted, 0.5).toFixed(1).padStart(11)}  ${quantile(sorted, 0.95).toFixed(1).padStart(11)}  ${load.refused}`,
  );
}

function summarise(server: ServerProcess, samples: readonly Sample[], load: SoakLoad, seconds: number): SoakResult {
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  const peak = (of: (sample: Sample) => number) => mb(Math.max(...samples.map(of)));
  const secondHalf = samples
    .slice(Math.floor(samples.length / 2))
    .map((sample) => sample.rss)
    .sort((a, b) => a - b);
  return {
    peakRssMb: peak((sample) => sample.rss),
    hwmMb: mb(server.peakRss()),
    peakAnonMb: peak((sample) => sample.anon),
    peakOwnMb: peak((sample) => sample.rss - sample.store),
    steadyRssMb: mb(quantile(secondHalf, 0.5)),
    eventsPerSecond: load.acknowledged / seconds,
    readP95Ms: quantile(
      load.takeLatencies(true).sort((a, b) => a - b),
      0.95,
    ),
    refused: load.refused,
  };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
