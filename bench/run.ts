/**
 * `npm run bench`: measures, in one run on the same generated rows, the store's bare prepared-insert ceiling and
 * end-to-end ingest through real HTTP (parse, validate, classify, identity, commit). Reports medians and the ratio.
 * BENCH_EVENTS sets the size (default 200k); BENCH_PG=1 (or DATABASE_URL) adds PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startServer } from '../api/server.ts';
import { toEventRow } from '../api/services/event-row.ts';
import type { EventRow } from '../db/event-row.ts';
import { openStore, type StoreConfig } from '../db/store.ts';
import { NO_POLICY } from '../shared/classify/types.ts';
import { parseEventLine } from '../shared/event.ts';
import { syntheticLines } from './generate.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const BATCH = 5000;

const lines = [...syntheticLines(EVENTS)];
const rows: EventRow[] = lines.map((line) => {
  const parsed = parseEventLine(line);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return toEventRow(parsed.event, line, NO_POLICY);
});
const bytes = lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);

async function bareInsert(config: StoreConfig): Promise<number> {
  const store = await openStore(config);
  const start = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) {
    const chunk = rows.slice(i, i + BATCH);
    await store.transaction((tx) => tx.insertEvents(chunk));
  }
  const seconds = (performance.now() - start) / 1000;
  await store.close();
  return rows.length / seconds;
}

async function endToEnd(config: StoreConfig): Promise<number> {
  const server = await startServer({ ...config, host: '127.0.0.1', port: 0 });
  const start = performance.now();
  for (let i = 0; i < lines.length; i += BATCH) {
    const response = await fetch(`${server.url}/api/v1/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${lines.slice(i, i + BATCH).join('\n')}\n`,
    });
    const report = (await response.json()) as { accepted: number };
    if (report.accepted !== Math.min(BATCH, lines.length - i)) throw new Error(`batch ${i}: ${JSON.stringify(report)}`);
  }
  const seconds = (performance.now() - start) / 1000;
  await server.close();
  return lines.length / seconds;
}

async function withSqlite<T>(work: (config: StoreConfig) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'lens-bench-'));
  try {
    return await work({ dataDir: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function withPostgres<T>(work: (config: StoreConfig) => Promise<T>): Promise<T> {
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `lens_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await work({ databaseUrl: url.toString(), dataDir: '' });
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function measure(label: string, withStore: typeof withSqlite) {
  const ceiling: number[] = [];
  const e2e: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    ceiling.push(await withStore(bareInsert));
    e2e.push(await withStore(endToEnd));
  }
  const c = median(ceiling);
  const e = median(e2e);
  console.log(
    `${label.padEnd(10)} bare insert ${fmt(c)} ev/s | end-to-end HTTP ${fmt(e)} ev/s | ratio ${(e / c).toFixed(2)}`,
  );
  console.log(`${''.padEnd(10)} runs: ceiling [${ceiling.map(fmt).join(', ')}] e2e [${e2e.map(fmt).join(', ')}]`);
  return { label, ceiling: c, endToEnd: e, ratio: e / c };
}

function fmt(rate: number): string {
  return Math.round(rate).toLocaleString('en-US');
}

console.log(
  `ingest: ${EVENTS.toLocaleString('en-US')} events (${(bytes / EVENTS).toFixed(0)} B/line NDJSON), batches of ${BATCH}, median of ${REPEATS}`,
);
await measure('sqlite', withSqlite);
if (process.env.BENCH_PG === '1' || process.env.DATABASE_URL) await measure('postgres', withPostgres);
