/**
 * The denial audit in a retry storm (ADR 15): one refused identity re-presented `events` times over a day, stored in
 * ingest's batches and folded after each, as the server does. Prints the folds' CPU time (process.cpuUsage, every
 * thread of the process: the SQLite writer's too) and the events the audit read.
 *
 *   npx tsx bench/denial-storm.ts [root] [events] [batch] [sqlite|postgres]
 *
 * `root` is the tree whose code runs (default: this one), so that another checkout's audit (the one before a change)
 * runs the same load: run the two interleaved, the machine's load moves between runs.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, withPostgres, withSqlite } from './support.ts';

const root = resolve(process.argv[2] ?? resolve(import.meta.dirname, '..'));
const total = Number(process.argv[3] ?? 50_000);
const batch = Number(process.argv[4] ?? 500);
const kind = process.argv[5] ?? 'sqlite';

const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);
const { openStore } = await load('db/store.ts');
const { ingestBatch } = await load('api/services/ingest.ts');
const { foldAll } = await load('api/services/fold.ts');
const denials = await load('db/queries/denial-audit.ts');

const START = Date.parse('2026-11-02T00:00:00Z');
const DAY_MS = 86_400_000;

function denial(n: number) {
  const ts = START + Math.floor((n * DAY_MS) / total);
  return {
    id: `storm-${n}`,
    ts: new Date(ts).toISOString(),
    source: 'client',
    client: 'agent-7',
    server: 'release-notes',
    session: `s${Math.floor(n / 100)}`,
    protocol: 'mcp',
    http: { method: 'POST', path: '/mcp', status: 200 },
    request: { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'publish', arguments: { v: 1 } } },
    response: {
      jsonrpc: '2.0',
      id: n,
      error: { code: -32003, message: 'denied', data: { reason: 'policy.budget_exhausted', retryable: false } },
    },
    latencyMs: 12,
  };
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const run = kind === 'postgres' ? withPostgres : withSqlite;
const result = await run(async (config) => {
  const store = await openStore(config);
  const folds: number[] = [];
  const readBefore = denials.denialAuditReads?.events ?? null;
  try {
    for (let first = 0; first < total; first += batch) {
      const items = Array.from({ length: Math.min(batch, total - first) }, (_, i) => ({
        line: i + 1,
        value: denial(first + i),
      }));
      await ingestBatch(store, items);
      const since = process.cpuUsage();
      await foldAll(store);
      folds.push(cpuMs(since));
    }
    const [row] = await store.all((await import('drizzle-orm')).sql`SELECT sum(replayed) AS n FROM denial_replay_hour`);
    return {
      folds,
      replayed: Number(row?.n),
      read: readBefore === null ? null : denials.denialAuditReads.events - readBefore,
    };
  } finally {
    await store.close();
  }
});

const sum = result.folds.reduce((a: number, b: number) => a + b, 0);
const tenth = Math.floor(result.folds.length / 10);
console.log(
  JSON.stringify({
    root,
    kind,
    events: total,
    batch,
    folds: result.folds.length,
    foldCpuS: +(sum / 1000).toFixed(2),
    medianFoldMs: +median(result.folds).toFixed(1),
    lastTenthMedianFoldMs: +median(result.folds.slice(-tenth)).toFixed(1),
    replayed: result.replayed,
    auditRead: result.read,
  }),
);
