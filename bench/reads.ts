/**
 * Read endpoints over a large store (BENCH_READS_EVENTS, default 1M; the target is 10M), embedded and, with
 * BENCH_PG=1, PostgreSQL, each
 * timed through real HTTP (app.request) against the maintained rollups, and the same aggregate computed from raw
 * events in the same run. Also: bytes on disk per event against the NDJSON they came from, part by part
 * (bench/store-bytes.ts), and the bench process's peak RSS while ingesting (the harness's own modules included: the
 * server's is the ingest bench's figure).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { createApp } from '../api/app.ts';
import { DEFAULT_CONFIG } from '../api/env.ts';
import { loadAnalysis } from '../api/services/analysis/load.ts';
import { rawCodeCounts } from '../db/counters/codes.ts';
import { topIdentityRows } from '../db/queries/analysis.ts';
import { rawBucketCounts } from '../db/queries/summary.ts';
import type { Store } from '../db/runner.ts';
import { openStore, type StoreConfig } from '../db/store.ts';
import { STORM_DEFAULTS } from '../shared/analysis/storm-tracker.ts';
import { detectStorms } from '../shared/analysis/storms.ts';
import { type Preset, resolveRange } from '../web/time-range.ts';
import { benchAlerts } from './alerts.ts';
import { benchExport } from './export.ts';
import { fillStore } from './fill.ts';
import { reportPostgresBytes, reportStoreBytes } from './store-bytes.ts';
import { answerOf, ms, sample } from './support.ts';

const EVENTS = Number(process.env.BENCH_READS_EVENTS ?? 1_000_000);
/**
 * The hours the events are spread over (default a day). Fewer hours give the density of a larger day: 1M events
 * over 2.4 h read, in any window of minutes (what alert rules read), like 10M events over 24 h.
 */
const SPAN_MS = Number(process.env.BENCH_READS_SPAN_HOURS ?? 24) * 3_600_000;

/** Where a kept store notes the moment its traffic was laid up to, so that its windows find it: a file of its
 * directory (BENCH_READS_DIR), a table of its database (BENCH_READS_PG_URL). */
const NOW_FILE = 'bench-now';
const NOW_TABLE = 'bench_now';

/**
 * Fills a store and times the reads over it. A store kept from an earlier run is read as it is: an embedded one whose
 * directory has NOW_FILE (BENCH_READS_DIR), a PostgreSQL one whose database has NOW_TABLE (BENCH_READS_PG_URL). A
 * 10M store takes ~30 min to build on SQLite, longer on PostgreSQL. A PostgreSQL store made by `withPostgres` is
 * filled afresh and dropped.
 */
export async function benchReads(config: StoreConfig, keep = false): Promise<void> {
  const label = config.databaseUrl ? 'postgres' : 'sqlite';
  const keptNow = await readKeptNow(config);
  if (keptNow !== null) {
    console.log(`reads (${label}): the store kept in ${config.databaseUrl ? 'its database' : config.dataDir}`);
    await timeReads(await openStore(config), keptNow);
    return;
  }
  const now = Date.now();
  const start = now - SPAN_MS;
  const spacing = SPAN_MS / EVENTS;
  const store = await openStore(config);
  const { ndjsonBytes, peakRss, seconds: ingestSeconds } = await fillStore(store, EVENTS, start, spacing);
  console.log(
    `reads (${label}): ${EVENTS.toLocaleString('en-US')} events ingested and folded in ${ingestSeconds.toFixed(0)} s ` +
      `(${Math.round(EVENTS / ingestSeconds).toLocaleString('en-US')} ev/s counted), ` +
      `bench process peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB`,
  );
  if (config.databaseUrl) {
    await reportPostgresBytes(store, EVENTS, ndjsonBytes);
    if (keep) await store.run(sql`CREATE TABLE ${sql.raw(NOW_TABLE)} AS SELECT ${now}::bigint AS now`);
    await timeReads(store, now);
    return;
  }
  await store.close();
  reportStoreBytes(config.dataDir, EVENTS, ndjsonBytes);
  writeFileSync(join(config.dataDir, NOW_FILE), String(now));
  await timeReads(await openStore(config), now);
}

/** The moment a kept store's traffic was laid up to, or null when the store is not one kept by this bench. */
async function readKeptNow(config: StoreConfig): Promise<number | null> {
  if (!config.databaseUrl) {
    const file = join(config.dataDir, NOW_FILE);
    return existsSync(file) ? Number(readFileSync(file, 'utf8')) : null;
  }
  const store = await openStore(config);
  try {
    const [table] = await store.all<{ name: string | null }>(sql`SELECT to_regclass(${NOW_TABLE})::text AS name`);
    if (!table?.name) return null;
    const [row] = await store.all<{ now: string }>(sql`SELECT now FROM ${sql.raw(NOW_TABLE)}`);
    return row ? Number(row.now) : null;
  } finally {
    await store.close();
  }
}

async function timeReads(store: Store, now: number): Promise<void> {
  await timeEndpoints(store, now);
  await benchAlerts(store, now);
  if (process.env.BENCH_EXPORT !== '0') await benchExport(store, now);
  await store.close();
}

async function timeEndpoints(store: Store, now: number): Promise<void> {
  const app = createApp({ store, clock: () => now, config: DEFAULT_CONFIG });
  // The windows the dashboard asks for: its presets end at the end of the current minute (web/time-range.ts).
  const preset = (name: Preset) => {
    const { from, to } = resolveRange({ preset: name }, now);
    return `from=${from}&to=${to}`;
  };
  const day = preset('24h');
  const hour = preset('1h');
  // An API client's window may end anywhere: the part of its last and first minutes is read from the events.
  const dayAnywhere = `from=${now - 24 * 3_600_000}&to=${now}`;
  const hourAnywhere = `from=${now - 3_600_000}&to=${now}`;
  const endpoints = [
    `/api/v1/summary?${day}`,
    `/api/v1/timeseries?${day}`,
    // A day of one server by the minute, in one call (issue 19 item 6).
    `/api/v1/timeseries?${day}&server=server-3&step=1m`,
    `/api/v1/servers?${day}`,
    `/api/v1/events?limit=100`,
    `/api/v1/summary?${hour}&server=server-3`,
    `/api/v1/identities?${hour}`,
    `/api/v1/identities?${day}`,
    `/api/v1/identities?${day}&only=alarmed`,
    `/api/v1/context-gap?${hour}`,
    `/api/v1/storms?${hour}&server=server-3`,
    `/api/v1/storms?${day}&sort=rank&limit=6`,
    `/api/v1/clients?${hour}`,
    // The dashboard's default range is a day: its overview panels and the server page read these.
    `/api/v1/context-gap?${day}`,
    `/api/v1/storms?${day}`,
    `/api/v1/servers/server-3?${day}`,
    // The actionability screen and the server page's panel (ADR 13).
    `/api/v1/actionability?${day}`,
    `/api/v1/actionability?${day}&server=server-3`,
    // Denials that did not hold: the Clients screen and the server page (ADR 15).
    `/api/v1/denials?${day}`,
    `/api/v1/denials?${day}&server=server-3`,
    // A Prometheus scrape: all-time totals and the gauges of now, whatever the store's size.
    '/metrics',
    `/api/v1/summary?${dayAnywhere}`,
    `/api/v1/servers?${dayAnywhere}`,
    `/api/v1/clients?${hourAnywhere}`,
  ];
  for (const path of endpoints) {
    const times = await sample(async () => {
      await answerOf(app, path);
    });
    const label = path
      .replace(dayAnywhere, 'a day ending anywhere')
      .replace(hourAnywhere, 'an hour ending anywhere')
      .replace(day, '24h')
      .replace(hour, '1h');
    console.log(`  ${label.padEnd(60)} p50 ${ms(times, 0.5)}  p95 ${ms(times, 0.95)}`);
  }
  const raw = await sample(async () => {
    await rawBucketCounts(store, { from: now - 24 * 3_600_000, to: now });
  }, 5);
  console.log(`  ${'raw events: the 24 h summary aggregate'.padEnd(60)} p50 ${ms(raw, 0.5)}  p95 ${ms(raw, 0.95)}`);
  // What the server page's failures per code did before they were counted at ingest.
  const codes = await sample(async () => {
    await rawCodeCounts(store, { server: 'server-3', from: now - 24 * 3_600_000, to: now, eventsFrom: null });
  }, 5);
  console.log(
    `  ${'raw events: codes of server-3 over 24 h'.padEnd(60)} p50 ${ms(codes, 0.5)}  p95 ${ms(codes, 0.95)}`,
  );
  // What the identity ranking did before the hour counts: group the window's events by identity.
  const identities = await sample(async () => {
    await topIdentityRows(store, { from: now - 24 * 3_600_000, to: now }, 20);
  }, 5);
  console.log(
    `  ${'raw events: the 24 h identity ranking'.padEnd(60)} p50 ${ms(identities, 0.5)}  p95 ${ms(identities, 0.95)}`,
  );
  // What GET /denials counted before the audit kept hour counts: the day's breaches and replay hours themselves.
  const denials = await sample(async () => {
    await store.all(sql`SELECT client, server, count(*) AS n FROM denial_breach
      WHERE answer_ts >= ${now - 24 * 3_600_000} AND answer_ts < ${now} GROUP BY client, server`);
    await store.all(sql`SELECT client, sum(replayed) AS n FROM denial_replay_hour
      WHERE start >= ${now - 24 * 3_600_000} AND start < ${now} GROUP BY client`);
  }, 5);
  console.log(`  ${'audit rows: the 24 h denial counts'.padEnd(60)} p50 ${ms(denials, 0.5)}  p95 ${ms(denials, 0.95)}`);
  // What the storms list did before storms were kept: the detector over the hour's events (and the probe window).
  const storms = await sample(async () => {
    const { events, verdicts } = await loadAnalysis(store, {
      server: 'server-3',
      from: now - 3_600_000 - STORM_DEFAULTS.probeWindowMs,
      to: now,
    });
    detectStorms(events, verdicts);
  }, 5);
  console.log(
    `  ${'raw events: storms of server-3 over 1 h'.padEnd(60)} p50 ${ms(storms, 0.5)}  p95 ${ms(storms, 0.95)}`,
  );
}
