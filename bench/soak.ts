import type { StoreConfig } from '../db/store.ts';
import { syntheticLines } from './generate.ts';
import { spawnServer } from './server-process.ts';

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
/** How often a line of figures is printed (default every minute). */
const REPORT_EVERY = Number(process.env.BENCH_SOAK_REPORT_SECONDS ?? 60);
/** The fixed load: events shipped per second (one batch), and dashboard reads per second. */
const EVENTS_PER_SECOND = Number(process.env.BENCH_SOAK_RATE ?? 1000);
const READS_PER_SECOND = 5;
const READS = ['/api/v1/summary', '/api/v1/timeseries', '/api/v1/servers', '/api/v1/identities', '/api/v1/storms'];

/**
 * The soak: a server in its own process under a fixed mixed load (a batch a second, and a dashboard's reads) for
 * BENCH_SOAK_SECONDS (default 10 minutes). Per minute it prints the server's resident set and the reads' p95: both
 * must stay flat. Events carry current times, so the reads' default window (the last 24 h) holds them.
 */
export async function benchSoak(config: StoreConfig): Promise<void> {
  const server = await spawnServer(config);
  const lines = syntheticLines(SECONDS * EVENTS_PER_SECOND, 7, Date.now(), 1000 / EVENTS_PER_SECOND);
  console.log(`soak: ${SECONDS} s at ${EVENTS_PER_SECOND} events/s and ${READS_PER_SECOND} reads/s`);
  console.log('minute  RSS MB  anon MB  file MB  shm MB  read p50 ms  read p95 ms  refused');
  let latencies: number[] = [];
  let refused = 0;
  const started = performance.now();
  for (let second = 0; second < SECONDS; second++) {
    const batch: string[] = [];
    for (let i = 0; i < EVENTS_PER_SECOND; i++) {
      const next = lines.next();
      if (!next.done) batch.push(next.value);
    }
    const ingest = await fetch(`${server.url}/api/v1/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${batch.join('\n')}\n`,
    });
    if (ingest.status !== 200) refused++;
    await ingest.arrayBuffer();
    for (let r = 0; r < READS_PER_SECOND; r++) {
      const t = performance.now();
      const read = await fetch(`${server.url}${READS[(second * READS_PER_SECOND + r) % READS.length]}`);
      await read.arrayBuffer();
      latencies.push(performance.now() - t);
      if (read.status !== 200) refused++;
    }
    // Holds the fixed rate: the rest of the second is idle.
    const due = started + (second + 1) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if ((second + 1) % REPORT_EVERY === 0 || second + 1 === SECONDS) {
      const sorted = latencies.sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
      const minute = ((second + 1) / 60).toFixed(1).padStart(6);
      const mb = (bytes: number, width: number) => (bytes / 2 ** 20).toFixed(0).padStart(width);
      const { anon, file, shmem } = server.rssParts();
      console.log(
        `${minute}  ${mb(server.rss(), 6)}  ${mb(anon, 7)}  ${mb(file, 7)}  ${mb(shmem, 6)}  ` +
          `${at(0.5).toFixed(1).padStart(11)}  ${at(0.95).toFixed(1).padStart(11)}  ${refused}`,
      );
      latencies = [];
    }
  }
  console.log(`soak: peak RSS ${(server.peakRss() / 2 ** 20).toFixed(0)} MB`);
  await server.stop();
}
