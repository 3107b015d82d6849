/**
 * The ingest of a client + proxy day: one day of synthetic requests shipped as the client's NDJSON log alone, and as
 * that log plus each server's nginx JSON access log of the same requests (every line carrying the client's request
 * id, so that each proxy record joins its client record and stops being counted). The runs alternate, each on a
 * fresh store and server process, and the medians are compared: what shipping the proxy's log as well costs ingest.
 * BENCH_PROXY_DAY_REQUESTS (default 50k) requests; BENCH_PROXY_DAY_REPEATS (default 3) runs of each.
 */
import { sql } from 'drizzle-orm';
import { openStore, type StoreConfig } from '../db/store.ts';
import { logRequest } from './access-logs.ts';
import { syntheticEvents } from './generate.ts';
import { spawnServer } from './server-process.ts';
import { fmt, median, printTable } from './support.ts';

const REQUESTS = Number(process.env.BENCH_PROXY_DAY_REQUESTS ?? 50_000);
const REPEATS = Number(process.env.BENCH_PROXY_DAY_REPEATS ?? 3);
const BATCH = 5000;
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 2);
const DAY_START = Date.parse('2026-11-02T00:00:00Z');
const DAY_MS = 86_400_000;

interface Post {
  path: string;
  contentType: string;
  body: string;
  lines: number;
  /** When the batch's last line was written: a shipper holding full batches sends it then. */
  last: number;
}

interface Day {
  clientOnly: Post[];
  withProxy: Post[];
  clientBatches: number;
  proxyBatches: number;
  /** Access-log batches sent before the client's last one: the rest join client records all stored already. */
  proxyBeforeLastClient: number;
  servers: number;
}

function makeDay(): Day {
  const logged = [...syntheticEvents(REQUESTS, 3, DAY_START, DAY_MS / REQUESTS)].map(logRequest);
  const clientOnly: Post[] = [];
  for (let i = 0; i < logged.length; i += BATCH) {
    const batch = logged.slice(i, i + BATCH);
    clientOnly.push({
      path: '/api/v1/ingest',
      contentType: 'application/x-ndjson',
      body: `${batch.map((r) => r.client).join('\n')}\n`,
      lines: batch.length,
      last: Math.max(...batch.map((r) => r.loggedAt)),
    });
  }
  // One nginx in front of each server, one access log each, written in the order requests ended.
  const perServer = new Map<string, typeof logged>();
  for (const request of logged) {
    const list = perServer.get(request.server);
    if (list === undefined) perServer.set(request.server, [request]);
    else list.push(request);
  }
  const proxy: Post[] = [];
  for (const [server, requests] of perServer) {
    requests.sort((a, b) => a.loggedAt - b.loggedAt);
    for (let i = 0; i < requests.length; i += BATCH) {
      const batch = requests.slice(i, i + BATCH);
      proxy.push({
        path: `/api/v1/ingest?format=nginx-json&server=${encodeURIComponent(server)}`,
        contentType: 'text/plain',
        body: `${batch.map((r) => r['nginx-json']).join('\n')}\n`,
        lines: batch.length,
        last: (batch[batch.length - 1] as (typeof batch)[number]).loggedAt,
      });
    }
  }
  const lastClient = Math.max(...clientOnly.map((p) => p.last));
  return {
    clientOnly,
    withProxy: [...clientOnly, ...proxy].sort((a, b) => a.last - b.last),
    clientBatches: clientOnly.length,
    proxyBatches: proxy.length,
    proxyBeforeLastClient: proxy.filter((p) => p.last < lastClient).length,
    servers: perServer.size,
  };
}

interface Run {
  seconds: number;
  lines: number;
  peakRss: number;
  /** The dashboard's counted total for the day (GET /api/v1/summary). */
  summaryTotal: number;
  stored: number;
  counted: number;
  /** Proxy records paired with a client record. */
  joined: number;
}

/** Ships the posts, IN_FLIGHT at a time, to a server in its own process; then reads back what was counted. */
async function ship(config: StoreConfig, posts: readonly Post[]): Promise<Run> {
  // The day is a fixed past one: packed as it arrives, its events would leave the table the counts below read.
  const server = await spawnServer(config, ['--hot-window', 'off']);
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    for (let post = posts[next++]; post !== undefined; post = posts[next++]) {
      const response = await fetch(`${server.url}${post.path}`, {
        method: 'POST',
        headers: { 'content-type': post.contentType },
        body: post.body,
      });
      const report = (await response.json()) as { accepted?: number; warningsTotal?: number };
      if (report.accepted !== post.lines) throw new Error(`batch refused (${post.path}): ${JSON.stringify(report)}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - start) / 1000;
  const peakRss = server.peakRss();
  const summary = await fetch(`${server.url}/api/v1/summary?from=${DAY_START - DAY_MS}&to=${DAY_START + 2 * DAY_MS}`);
  const summaryTotal = ((await summary.json()) as { overall: { total: number } }).overall.total;
  await server.stop();
  const store = await openStore(config);
  const [row] = await store.all<{ stored: number; counted: number; joined: number }>(sql`SELECT count(*) AS stored,
    coalesce(sum(counted), 0) AS counted,
    coalesce(sum(CASE WHEN source = 'proxy' AND partner IS NOT NULL THEN 1 ELSE 0 END), 0) AS joined FROM events`);
  await store.close();
  const lines = posts.reduce((n, p) => n + p.lines, 0);
  return {
    seconds,
    lines,
    peakRss,
    summaryTotal,
    stored: Number(row?.stored),
    counted: Number(row?.counted),
    joined: Number(row?.joined),
  };
}

export async function benchProxyDay(withStore: <T>(work: (config: StoreConfig) => Promise<T>) => Promise<T>) {
  const day = makeDay();
  console.log(
    `proxy day: ${fmt(REQUESTS)} requests over 24 h to ${day.servers} servers, shipped as the client's NDJSON log ` +
      `(${day.clientBatches} batches of <= ${BATCH}), and as that log plus each server's nginx JSON access log of the ` +
      `same requests (${day.proxyBatches} batches of <= ${BATCH}, POST /api/v1/ingest?format=nginx-json&server=NAME, ` +
      `text/plain), batches sent in the order their last line was written, ${IN_FLIGHT} in flight; ` +
      `median of ${REPEATS} alternating runs (sqlite)`,
  );
  const clientRuns: Run[] = [];
  const proxyRuns: Run[] = [];
  for (let r = 0; r < REPEATS; r++) {
    clientRuns.push(await withStore((config) => ship(config, day.clientOnly)));
    proxyRuns.push(await withStore((config) => ship(config, day.withProxy)));
  }
  const rates = (runs: readonly Run[]) => ({
    seconds: median(runs.map((run) => run.seconds)),
    lines: median(runs.map((run) => run.lines / run.seconds)),
    requests: median(runs.map((run) => REQUESTS / run.seconds)),
  });
  const base = rates(clientRuns);
  const rows = [
    ['client only', clientRuns],
    ['client + nginx-json', proxyRuns],
  ] as const;
  printTable(
    ['run', 'lines', 'seconds', 'events/s', 'vs client', 'requests/s', 'vs client', 'peak RSS MB', 'runs (s)'],
    rows.map(([label, runs]) => {
      const m = rates(runs);
      return [
        label,
        fmt(runs[0]?.lines ?? 0),
        m.seconds.toFixed(2),
        fmt(m.lines),
        `${(m.lines / base.lines).toFixed(2)}x`,
        fmt(m.requests),
        `${(m.requests / base.requests).toFixed(2)}x`,
        fmt(Math.max(...runs.map((run) => run.peakRss)) / 2 ** 20),
        runs.map((run) => run.seconds.toFixed(2)).join(', '),
      ];
    }),
  );
  console.log(
    "  events/s: lines stored per second (client + proxy); requests/s: the day's requests per second. " +
      `${day.proxyBeforeLastClient} of ${day.proxyBatches} access-log batches went before the client's last batch.`,
  );
  for (const [label, runs] of rows) {
    const agree = runs.every((run) => sameCounts(run, runs[0] as Run));
    const run = runs[0] as Run;
    console.log(
      `  ${label}: stored ${fmt(run.stored)} events, counted ${fmt(run.counted)} (summary total ${fmt(run.summaryTotal)})` +
        `, proxy records joined ${fmt(run.joined)}${agree ? '' : ' (runs differ!)'}`,
    );
  }
  const ok = [...clientRuns, ...proxyRuns].every((run) => run.counted === REQUESTS && run.summaryTotal === REQUESTS);
  console.log(
    `  counted total equals the client count (${fmt(REQUESTS)}) in every run: ${ok ? 'yes' : 'NO'}` +
      `; proxy lines all joined: ${proxyRuns.every((run) => run.joined === REQUESTS) ? 'yes' : 'NO'}`,
  );
}

function sameCounts(a: Run, b: Run): boolean {
  return a.stored === b.stored && a.counted === b.counted && a.summaryTotal === b.summaryTotal && a.joined === b.joined;
}
