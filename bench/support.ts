import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { createApp } from '../api/app.ts';
import { citusDatabase, placeOnCitus } from '../db/citus.ts';
import type { StoreConfig } from '../db/store.ts';

/** Helpers the bench parts share. */

/** Runs `work` on a fresh embedded store in a temporary directory, removed afterwards. */
export async function withSqlite<T>(work: (config: StoreConfig) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'lens-bench-'));
  try {
    return await work({ dataDir: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The admin URLs of a Citus cluster's workers, comma-separated, DATABASE_URL being its coordinator: the PostgreSQL
 * runs are then on a database made on every node and placed by `lens citus-setup`'s calls (ADR 14, "The run on
 * Citus"). Unset, as in CI, PostgreSQL is one server.
 */
const CITUS_WORKERS = (process.env.BENCH_CITUS_WORKERS ?? '').split(',').filter((url) => url !== '');

/** Runs `work` on a fresh PostgreSQL database (DATABASE_URL's server, or the local one), dropped afterwards. */
export async function withPostgres<T>(work: (config: StoreConfig) => Promise<T>): Promise<T> {
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `lens_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  if (CITUS_WORKERS.length > 0) {
    const database = await citusDatabase(name, adminUrl, CITUS_WORKERS);
    try {
      await placeOnCitus(database.url);
      return await work({ databaseUrl: database.url, dataDir: '' });
    } finally {
      await database.drop();
    }
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await warnWithoutAutovacuum(admin);
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

/**
 * Without autovacuum nothing analyses the day's partitions as they fill, and PostgreSQL plans against an empty
 * table: in the soak the identity list took 0.6-1.6 s at 280k events, 60-100 ms once analysed (issue 39's note).
 * A CI server may run so (this machine's does); a production one does not. Said once, beside the figures.
 */
async function warnWithoutAutovacuum(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ autovacuum: string }>('SHOW autovacuum');
  if (rows[0]?.autovacuum !== 'off' || warnedAutovacuum) return;
  warnedAutovacuum = true;
  console.log('  PostgreSQL runs without autovacuum: its plans go stale as partitions fill, its reads are slower than');
  console.log("  a production server's (ALTER SYSTEM SET autovacuum = on; SELECT pg_reload_conf() to measure one).");
}

let warnedAutovacuum = false;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** A rate or a count, rounded, with thousands separators. */
export function fmt(rate: number): string {
  return Math.round(rate).toLocaleString('en-US');
}

/** Columns padded to their widest cell; text left, numbers right. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const numeric = header.map((_, c) => rows.every((r) => /^[\d,.]+x?$/.test(r[c] ?? '')));
  const line = (cells: readonly string[]) =>
    `  ${cells.map((cell, c) => (numeric[c] ? cell.padStart(widths[c] as number) : cell.padEnd(widths[c] as number))).join('  ')}`.trimEnd();
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

/** Samples a read takes by default (after one warm-up). */
const SAMPLES = 15;

/** The times of `count` runs of `work` after a warm-up, ms, sorted. */
export async function sample(work: () => Promise<void>, count = SAMPLES): Promise<number[]> {
  await work(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await work();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

/** The quantile `q` of sorted values (the value at that rank, not interpolated). */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** The quantile `q` of sorted times, as a column of ms. */
export function ms(sorted: number[], q: number): string {
  return `${quantile(sorted, q).toFixed(1).padStart(8)} ms`;
}

/** The body of a GET through the app (real HTTP handling, as the dashboard's client asks); anything but 200 throws. */
export async function answerOf(app: ReturnType<typeof createApp>, path: string): Promise<string> {
  const res = await app.request(path, { headers: { host: '127.0.0.1' } });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.text();
}
