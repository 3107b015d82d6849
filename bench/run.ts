/**
 * `npm run bench`: measures, in one run on the same generated rows, the store's bare prepared-insert ceiling and
 * end-to-end ingest through real HTTP (parse, validate, classify, identity, commit). Reports medians and the ratio.
 * BENCH_EVENTS sets the size (default 200k); BENCH_PG=1 (or DATABASE_URL) adds PostgreSQL, BENCH_SQLITE=0 leaves SQLite out.
 * Then parse throughput per input format (formats.ts) and the ingest of a client + proxy day (proxy-day.ts), reads,
 * what cold events weigh once compacted (cold-blocks.ts), the UI and the soak. Each part can be left out with
 * BENCH_<PART>=0 (INGEST, FORMATS, PROXY_DAY, READS, COLD, UI, SOAK), or the parts named run alone:
 * `npm run bench -- soak` (ingest, formats, proxy-day, reads, cold, ui, soak). The reads keep their store for another
 * run in BENCH_READS_DIR (SQLite) or BENCH_READS_PG_URL (a PostgreSQL database made beforehand).
 * Run apart, tree against tree: bench/fold-cpu.ts, the fold's CPU alone per counted event (of the server CPU above).
 */
import { buildEvent } from '../api/services/ingest-classify.ts';
import { eventDay } from '../db/event-days.ts';
import { type EventRow, packRows } from '../db/event-row.ts';
import { ensureEventDays } from '../db/queries/day-partitions.ts';
import { openStore, type StoreConfig } from '../db/store.ts';
import { NO_POLICY } from '../shared/classify/types.ts';
import { parseEventLine } from '../shared/event.ts';
import { benchColdBlocks } from './cold-blocks.ts';
import { duckDbLoad } from './duckdb-load.ts';
import { benchFormats } from './formats.ts';
import { syntheticLines } from './generate.ts';
import { benchProxyDay } from './proxy-day.ts';
import { benchReads } from './reads.ts';
import { analysisHealth, spawnServer, untilAnalysed } from './server-process.ts';
import { benchSoak } from './soak.ts';
import { fmt, median, withPostgres, withSqlite } from './support.ts';
import { benchUi } from './ui.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const BATCH = 5000;
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 2);

/** The generated lines and their built rows: hundreds of MB at the default size, so they live only while in use. */
interface Fixture {
  lines: string[];
  rows: EventRow[];
}

function makeFixture(): Fixture {
  const lines = [...syntheticLines(EVENTS)];
  const rows = lines.map((line) => {
    const parsed = parseEventLine(line);
    if (!parsed.ok) throw new Error(parsed.error.message);
    return buildEvent(parsed.event, line, NO_POLICY);
  });
  return { lines, rows };
}

/**
 * The ceiling: the already-built rows written by the store's own hot insert (the rows and the blocks of their lines),
 * a transaction per batch, IN_FLIGHT at a time, and nothing else: no HTTP, parsing, classification, gate or rollups.
 */
async function bareInsert(config: StoreConfig, { rows }: Fixture): Promise<number> {
  const store = await openStore(config);
  const starts = Array.from({ length: Math.ceil(rows.length / BATCH) }, (_, i) => i * BATCH);
  // The day partitions (PostgreSQL) are made before the clock starts, as the server makes them ahead of time.
  await ensureEventDays(
    store,
    rows.map((row) => eventDay(row.ts)),
  );
  const start = performance.now();
  const write = async () => {
    for (let i = starts.shift(); i !== undefined; i = starts.shift()) {
      const chunk = rows.slice(i, i + BATCH);
      await store.transaction((tx) => tx.insertEvents(packRows(chunk)));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, write));
  const seconds = (performance.now() - start) / 1000;
  await store.close();
  return rows.length / seconds;
}

/**
 * Ships the lines as NDJSON batches with IN_FLIGHT requests outstanding, as a log shipper would, to a server in its
 * own process (started as `npm run lens -- serve` starts it), so that the client's work is not billed to it. The
 * rate is up to the moment the fold behind the commit has counted every event, not up to the last commit; the
 * analysis lag /health reports is sampled meanwhile.
 */
async function endToEnd(config: StoreConfig, { lines }: Fixture): Promise<IngestRun> {
  // The generated traffic lies on fixed past days (bench/generate.ts), so a server packing events older than its hot
  // window (ADR 21) packed the batches as they came, in the background, and billed it to ingest: ~30 µs of server CPU
  // per counted event at 100k. What packing costs is bench/cold-blocks.ts's to say.
  const server = await spawnServer(config, ['--hot-window', 'off']);
  const bodies: { body: string; count: number }[] = [];
  for (let i = 0; i < lines.length; i += BATCH) {
    const batch = lines.slice(i, i + BATCH);
    bodies.push({ body: `${batch.join('\n')}\n`, count: batch.length });
  }
  const lags: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      lags.push((await analysisHealth(server.url)).lagMs);
      await new Promise((resolve) => setTimeout(resolve, LAG_SAMPLE_MS));
    }
  })();
  try {
    const cpuBefore = server.cpuSeconds();
    const { committed, analysed } = await shipAll(server.url, bodies);
    const cpu = server.cpuSeconds() - cpuBefore;
    sampling = false;
    await sampler;
    lags.sort((a, b) => a - b);
    return {
      rate: lines.length / analysed,
      commitRate: lines.length / committed,
      lagP50: percentile(lags, 0.5),
      lagP99: percentile(lags, 0.99),
      peakRss: server.peakRss(),
      cpuPerEventUs: (cpu * 1e6) / lines.length,
    };
  } finally {
    sampling = false;
    await server.stop();
  }
}

/** Seconds until the last batch was acknowledged, and until every event of them was counted. */
async function shipAll(url: string, bodies: { body: string; count: number }[]) {
  const start = performance.now();
  const ship = async () => {
    for (let next = bodies.shift(); next !== undefined; next = bodies.shift()) {
      const response = await fetch(`${url}/api/v1/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: next.body,
      });
      const report = (await response.json()) as { accepted: number };
      if (report.accepted !== next.count) throw new Error(`batch refused: ${JSON.stringify(report)}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, ship));
  const committed = (performance.now() - start) / 1000;
  await untilAnalysed(url);
  return { committed, analysed: (performance.now() - start) / 1000 };
}

interface IngestRun {
  /** Events per second until every one was counted. */
  rate: number;
  /** Events per second until the last was acknowledged (stored, not yet counted). */
  commitRate: number;
  lagP50: number;
  lagP99: number;
  peakRss: number;
  /** The server process's CPU (every thread) from the first batch until the last event was counted, per event. */
  cpuPerEventUs: number;
}

const LAG_SAMPLE_MS = 100;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

async function measure(label: string, withStore: typeof withSqlite, fixture: Fixture) {
  const ceiling: number[] = [];
  const runs: IngestRun[] = [];
  for (let r = 0; r < REPEATS; r++) {
    ceiling.push(await withStore((config) => bareInsert(config, fixture)));
    runs.push(await withStore((config) => endToEnd(config, fixture)));
  }
  const c = median(ceiling);
  const e = median(runs.map((run) => run.rate));
  const committed = median(runs.map((run) => run.commitRate));
  console.log(
    `${label.padEnd(10)} bare insert ${fmt(c)} ev/s | end-to-end HTTP, counted ${fmt(e)} ev/s | ratio ${(e / c).toFixed(2)} | acknowledged ${fmt(committed)} ev/s (${(committed / c).toFixed(2)})`,
  );
  console.log(
    `${''.padEnd(10)} runs: ceiling [${ceiling.map(fmt).join(', ')}] e2e [${runs.map((run) => fmt(run.rate)).join(', ')}]`,
  );
  console.log(
    `${''.padEnd(10)} analysis lag while ingesting: p50 ${median(runs.map((run) => run.lagP50))} ms, p99 ${median(runs.map((run) => run.lagP99))} ms`,
  );
  const cpu = runs.map((run) => run.cpuPerEventUs);
  console.log(
    `${''.padEnd(10)} server CPU per counted event ${median(cpu).toFixed(0)} µs (runs ${cpu.map((us) => us.toFixed(0)).join(', ')}; every thread of the server process, the database server's own processes not included)`,
  );
  const peakRss = Math.max(...runs.map((run) => run.peakRss));
  console.log(`${''.padEnd(10)} server peak RSS while ingesting ${(peakRss / 2 ** 20).toFixed(0)} MB`);
  return { label, ceiling: c, endToEnd: e, ratio: e / c };
}

async function benchIngest(): Promise<void> {
  const fixture = makeFixture();
  const bytes = fixture.lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  console.log(
    `ingest: ${EVENTS.toLocaleString('en-US')} events (${(bytes / EVENTS).toFixed(0)} B/line NDJSON), batches of ${BATCH}, ${IN_FLIGHT} in flight, median of ${REPEATS}`,
  );
  const duck = await duckDbLoad(fixture.lines);
  console.log(
    `${'duckdb'.padEnd(10)} load of the same NDJSON ${fmt(duck.eventsPerSecond)} ev/s | CPU per event ${duck.cpuPerEventUs.toFixed(1)} µs | ${duck.bytesPerEvent.toFixed(0)} B/event on disk (the yardstick: columns and nothing else)`,
  );
  if (process.env.BENCH_SQLITE !== '0') await measure('sqlite', withSqlite, fixture);
  if (withPg) await measure('postgres', withPostgres, fixture);
}

/**
 * Which parts run: those named on the command line (`npm run bench -- soak`), else every part BENCH_<PART>=0 does
 * not leave out.
 */
const named = process.argv.slice(2);
const runs = (part: string) =>
  named.length > 0 ? named.includes(part) : process.env[`BENCH_${part.toUpperCase().replace('-', '_')}`] !== '0';
const withPg = process.env.BENCH_PG === '1' || Boolean(process.env.DATABASE_URL);

// The fixture is garbage once this returns: the reads below are not timed (nor their RSS read) beside it.
if (runs('ingest')) await benchIngest();
if (runs('formats')) await benchFormats();
if (runs('proxy-day')) await benchProxyDay(withSqlite);
if (runs('reads')) {
  const keptDir = process.env.BENCH_READS_DIR;
  if (keptDir) await benchReads({ dataDir: keptDir });
  else if (process.env.BENCH_SQLITE !== '0') await withSqlite(benchReads);
  const keptPg = process.env.BENCH_READS_PG_URL;
  if (keptPg) await benchReads({ databaseUrl: keptPg, dataDir: '' }, true);
  else if (withPg) await withPostgres(benchReads);
}
if (runs('cold')) await withSqlite(benchColdBlocks);
if (runs('ui')) await benchUi();
if (runs('soak')) {
  if (process.env.BENCH_SQLITE !== '0') await withSqlite((config) => benchSoak('sqlite', config));
  if (withPg) await withPostgres((config) => benchSoak('postgres', config));
}
