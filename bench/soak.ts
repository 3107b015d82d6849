import type { StoreConfig } from '../db/store.ts';
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

/** One store's soak in figures. */
export interface SoakResult {
  /** The highest resident set sampled while the load ran, and the kernel's own high-water mark (start-up included). */
  peakRssMb: number;
  hwmMb: number;
  /**
   * The highest anonymous part sampled: the heaps, SQLite's caches and buffers. The rest is file pages: node itself
   * (~50 MB) and, on SQLite, the store's pages the dashboard's reads touched through mmap (db/sqlite.ts), which the
   * kernel may drop and would keep in its page cache either way.
   */
  peakAnonMb: number;
  /** The median resident set over the soak's second half, once caches and heaps have grown to what they hold. */
  steadyRssMb: number;
  /** Events acknowledged per second of the soak (the load asks for EVENTS_PER_SECOND; less means it fell behind). */
  eventsPerSecond: number;
  readP95Ms: number;
  refused: number;
}

/**
 * The soak: a server in its own process under a fixed mixed load, a batch of BENCH_SOAK_RATE events a second and a
 * dashboard's reads (each on its own schedule, so slow reads do not slow the shipping), for BENCH_SOAK_SECONDS
 * (default 10 minutes). Its resident set is sampled every second (VmRSS, and split into anonymous memory: the
 * JavaScript heaps, SQLite's caches, buffers; file pages: node itself and the store's mapped pages; shared: SQLite's
 * WAL index); per BENCH_SOAK_REPORT_SECONDS it prints the peak of those samples and the reads' p95: both must stay
 * flat. Events carry current times, so the reads' default window (the last 24 h) holds them.
 */
export async function benchSoak(label: string, config: StoreConfig): Promise<SoakResult> {
  const server = await spawnServer(config);
  console.log(`soak ${label}: ${SECONDS} s at ${EVENTS_PER_SECOND} events/s and ${READS_PER_SECOND} reads/s`);
  console.log('  minute  RSS MB  anon MB  file MB  shm MB  events/s  read p50 ms  read p95 ms  refused');
  const load = new SoakLoad(server.url);
  const samples: number[] = [];
  let peakAnon = 0;
  const started = performance.now();
  try {
    const ingest = load.ship(started);
    const reads = load.read(started);
    let window = { rss: 0, anon: 0, file: 0, shmem: 0, acknowledged: 0 };
    for (let second = 1; second <= SECONDS; second++) {
      const wait = started + second * 1000 - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const rss = server.rss();
      samples.push(rss);
      const parts = server.rssParts();
      peakAnon = Math.max(peakAnon, parts.anon);
      // Each column is its own peak over the window: the parts of one moment need not add up to the RSS peak.
      window = {
        rss: Math.max(window.rss, rss),
        anon: Math.max(window.anon, parts.anon),
        file: Math.max(window.file, parts.file),
        shmem: Math.max(window.shmem, parts.shmem),
        acknowledged: window.acknowledged,
      };
      if (second % REPORT_EVERY === 0 || second === SECONDS) {
        const shipped = load.acknowledged - window.acknowledged;
        const seconds = second % REPORT_EVERY || REPORT_EVERY;
        printWindow(second, window, shipped / seconds, load.takeLatencies(), load.refused);
        window = { rss: 0, anon: 0, file: 0, shmem: 0, acknowledged: load.acknowledged };
      }
    }
    load.stop();
    await Promise.all([ingest, reads]);
    const result = summarise(server, samples, peakAnon, load, (performance.now() - started) / 1000);
    console.log(
      `soak ${label}: peak RSS ${result.peakRssMb} MB (VmHWM ${result.hwmMb}, anonymous ${result.peakAnonMb}), ` +
        `steady ${result.steadyRssMb} MB, ` +
        `${Math.round(result.eventsPerSecond)} events/s, reads p95 ${result.readP95Ms.toFixed(0)} ms, ` +
        `${result.refused} refused; goal ${RSS_GOAL_MB} MB ${result.peakRssMb <= RSS_GOAL_MB ? 'held' : 'MISSED'}`,
    );
    return result;
  } finally {
    load.stop();
    await server.stop();
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

function printWindow(
  second: number,
  peak: { rss: number; anon: number; file: number; shmem: number },
  eventsPerSecond: number,
  latencies: number[],
  refused: number,
): void {
  const sorted = latencies.sort((a, b) => a - b);
  const mb = (bytes: number, width: number) => (bytes / 2 ** 20).toFixed(0).padStart(width);
  console.log(
    `  ${(second / 60).toFixed(1).padStart(6)}  ${mb(peak.rss, 6)}  ${mb(peak.anon, 7)}  ${mb(peak.file, 7)}  ` +
      `${mb(peak.shmem, 6)}  ${eventsPerSecond.toFixed(0).padStart(8)}  ${quantile(sorted, 0.5).toFixed(1).padStart(11)}  ` +
      `${quantile(sorted, 0.95).toFixed(1).padStart(11)}  ${refused}`,
  );
}

function summarise(
  server: ServerProcess,
  samples: number[],
  peakAnon: number,
  load: SoakLoad,
  seconds: number,
): SoakResult {
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  const secondHalf = samples.slice(Math.floor(samples.length / 2)).sort((a, b) => a - b);
  return {
    peakRssMb: mb(Math.max(...samples)),
    hwmMb: mb(server.peakRss()),
    peakAnonMb: mb(peakAnon),
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
