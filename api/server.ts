import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { eventDay } from '../db/event-days.ts';
import { ensureEventDays } from '../db/queries/day-partitions.ts';
import type { Store } from '../db/runner.ts';
import { openStore, type StoreConfig } from '../db/store.ts';
import type { ProxyRoute } from '../shared/proxy-logs/routes.ts';
import { createApp } from './app.ts';
import { loadDemo } from './demo/load.ts';
import { type AppConfig, DEFAULT_CONFIG } from './env.ts';
import { backfillActionability } from './services/actionability-backfill.ts';
import { DELIVERY_DEFAULTS } from './services/alerts/deliver.ts';
import { startAlertEngine } from './services/alerts/engine.ts';
import { seedDefaultRules } from './services/alerts/rules.ts';
import { startBackgroundLoop } from './services/background-loop.ts';
import { compactColdEvents } from './services/compaction.ts';
import { Folder } from './services/fold.ts';
import { FoldThread } from './services/fold-thread.ts';
import { buildMissingStorms, replayDuePartitions } from './services/gate-maintenance.ts';
import { backfillInputRequests } from './services/input-requests.ts';
import { ProcessMetrics } from './services/process-metrics.ts';
import { backfillRequestFacts } from './services/request-facts.ts';
import { applyRetention, DEFAULT_HORIZONS, type Horizons } from './services/retention.ts';
import { rederiveStoredFacts } from './services/stored-facts.ts';

export interface ServerOptions extends StoreConfig {
  host: string;
  port: number;
  token?: string | null;
  /** The shipper's token: POST /api/v1/ingest only (AppConfig.ingestToken). */
  ingestToken?: string | null;
  /** `HOST[:PORT]` entries alert targets may reach despite an internal address (AppConfig.allowedTargets). */
  allowedTargets?: readonly string[];
  /** The dashboard as people reach it (`--public-url`): PagerDuty and Alertmanager link to a rule's page there. */
  publicUrl?: string | null;
  allowedOrigins?: readonly string[];
  /** Extra Host names to answer to, e.g. the name a reverse proxy forwards. */
  allowedHosts?: readonly string[];
  maxBodyBytes?: number;
  /** Which server an access-log line belongs to, by host and path prefix (AppConfig.proxyRoutes). */
  proxyRoutes?: readonly ProxyRoute[];
  /** How long raw events and hour counts are kept (`--retain-events`, `--retain-counts`). */
  horizons?: Horizons;
  /**
   * How long events stay rows before compaction packs them into cold blocks (`--hot-window`,
   * api/services/compaction.ts); null or absent: never. `lens serve` passes 48 h unless told otherwise; this default
   * stays never, so that a test's server over old fixtures does not pack them under its reads.
   */
  hotWindowMs?: number | null;
  /** AppConfig.maxAnalysisLagMs. */
  maxAnalysisLagMs?: number;
  /** AppConfig.metricsLabelSets. */
  metricsLabelSets?: number;
  /** Load the generated demo federation before listening. */
  demo?: boolean;
  /** How long a caller may take to send its headers (default 10 s). */
  headersTimeoutMs?: number;
  /** How long a connection may stay silent, either way, before it is closed (default 120 s). */
  idleTimeoutMs?: number;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** A server just started, with the store it serves: `lens serve` says what that holds. */
export interface StartedServer extends RunningServer {
  store: Store;
}

/** How often the fold queue is looked at besides ingest's kicks: for what another process, or a crash, left. */
const FOLD_IDLE_MS = 1_000;

/** How often the gate replays due behind the commit are looked for when none was just written. */
const REPLAY_IDLE_MS = 1_000;

/** How often retention deletes what passed its horizons; the first pass runs this long after start-up. */
const RETENTION_EVERY_MS = 10 * 60_000;

/** How often compaction looks for events that left the hot window: an hour's events become due at once. */
const COMPACTION_EVERY_MS = 60_000;

/**
 * The first compaction pass runs this soon after start-up, not a minute idle: a server restarted after a crash in the
 * middle of a compaction, or started on a store of older events (the first start since compaction is the default),
 * goes on packing at once (and the kill -9 test, tests/api/crash.test.ts, can kill it mid-pass within seconds of each
 * start).
 */
const COMPACTION_FIRST_MS = 5_000;

/** How often the alert engine looks for due rules; rules themselves run every 10 s at the most. */
const ALERT_TICK_MS = 2_000;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const WEB_ROOT = fileURLToPath(new URL('../dist/web', import.meta.url));

/** Why a server may not start with these options, or null. An ops dashboard never listens openly without a login. */
export function refuseUnsafeBind(host: string, token: string | null | undefined): string | null {
  if (LOOPBACK.has(host) || token) return null;
  return `refusing to listen on ${host} without credentials: set LENS_TOKEN to a long random secret, or keep the default --host 127.0.0.1`;
}

/**
 * On loopback the Host check is what stops DNS rebinding. Beyond it a token is required anyway, so without an
 * explicit list any name is answered (the server cannot know which names point at it).
 */
function allowedHosts(options: ServerOptions): readonly string[] | null {
  const extra = options.allowedHosts ?? [];
  if (LOOPBACK.has(options.host)) return [...(DEFAULT_CONFIG.allowedHosts ?? []), ...extra];
  return extra.length > 0 ? extra : null;
}

/**
 * A connection that sends its headers slowly, its body slowly, or nothing at all is closed instead of held forever:
 * each holds memory and a socket an honest caller could use. The checks run every second, not Node's default 30.
 */
function slowClientLimits(options: ServerOptions) {
  const headersMs = options.headersTimeoutMs ?? 10_000;
  return {
    headersTimeout: headersMs,
    requestTimeout: Math.max(headersMs, 120_000),
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: Math.min(1_000, headersMs),
  };
}

export async function startServer(options: ServerOptions): Promise<StartedServer> {
  const refusal = refuseUnsafeBind(options.host, options.token);
  if (refusal) throw new Error(refusal);
  const store = await openStore(options);
  // Before the gate is replayed from them (buildMissingStorms below), and before any batch can replay a partition.
  await rederiveStoredFacts(store);
  await backfillActionability(store);
  await backfillRequestFacts(store);
  await backfillInputRequests(store);
  if (options.demo) await loadDemo(store, Date.now());
  await seedDefaultRules({ ctx: { db: store, now: Date.now() } });
  const config: AppConfig = {
    ...DEFAULT_CONFIG,
    token: options.token ?? null,
    ingestToken: options.ingestToken ?? null,
    allowedTargets: options.allowedTargets ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_CONFIG.maxBodyBytes,
    allowedHosts: allowedHosts(options),
    proxyRoutes: options.proxyRoutes ?? [],
    maxAnalysisLagMs: options.maxAnalysisLagMs ?? DEFAULT_CONFIG.maxAnalysisLagMs,
    metricsLabelSets: options.metricsLabelSets ?? DEFAULT_CONFIG.metricsLabelSets,
  };
  const processMetrics = new ProcessMetrics();
  const folding = {
    inlineReplayMax: config.inlineReplayMax,
    log: console.error,
    onFold: (seconds: number) => processMetrics.folds.observe(seconds),
  };
  // PostgreSQL takes writers side by side, so the fold gets a thread and a connection of its own. SQLite has one
  // writer: a second connection only waits on the file's lock (measured: the same ratio to the bare insert, 110 MB
  // more resident), so there the fold runs here, queued with ingest's transactions.
  const folder = options.databaseUrl ? new FoldThread(options, folding) : new Folder(store, folding);
  const app = createApp({ store, clock: Date.now, config, folder, processMetrics });
  if (existsSync(WEB_ROOT)) {
    app.use('/*', serveStatic({ root: WEB_ROOT }));
    // Every other non-API path is a screen of the single-page app; unknown API paths keep their JSON 404.
    app.get('*', (c, next) =>
      c.req.path.startsWith('/api/') ? next() : serveStatic({ root: WEB_ROOT, path: 'index.html' })(c, next),
    );
  }
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve(
      { fetch: app.fetch, hostname: options.host, port: options.port, serverOptions: slowClientLimits(options) },
      () => resolve(s),
    );
    // Node's header and request checks only see connections that started a request; a silent one is idle.
    s.setTimeout(options.idleTimeoutMs ?? 120_000);
  });
  const alerts = startAlertEngine(store, {
    ...DELIVERY_DEFAULTS,
    allowedTargets: config.allowedTargets,
    publicUrl: options.publicUrl ?? null,
    tickMs: ALERT_TICK_MS,
    log: console.error,
    onEvaluated: (seconds) => processMetrics.alertEvaluations.observe(seconds),
  });
  let closing = false;
  // Ingest kicks the folder after each commit; this picks up what another process, or a crash, left queued.
  const folds = startBackgroundLoop(
    async () => {
      folder.kick();
      await folder.settled();
      return false;
    },
    { idleMs: FOLD_IDLE_MS, what: 'folding stored events into the counts', log: console.error },
  );
  const replays = startBackgroundLoop(async () => (await replayDuePartitions(store)) > 0, {
    idleMs: REPLAY_IDLE_MS,
    what: 'replaying the gate behind the commit',
    log: console.error,
  });
  const horizons = options.horizons ?? DEFAULT_HORIZONS;
  const retention = startBackgroundLoop(
    async () => {
      const now = Date.now();
      // Today's and the next two days' partitions (PostgreSQL) are made ahead, so that live ingest never waits on one.
      await ensureEventDays(
        store,
        [0, 1, 2].map((ahead) => eventDay(now) + ahead),
      );
      await applyRetention(store, horizons, now, () => !closing);
      return false;
    },
    { idleMs: RETENTION_EVERY_MS, what: 'deleting events and counts past retention', log: console.error },
  );
  const hotWindowMs = options.hotWindowMs ?? null;
  const compaction =
    hotWindowMs === null
      ? null
      : startBackgroundLoop(
          async () => {
            await compactColdEvents(store, hotWindowMs, Date.now(), () => !closing);
            return false;
          },
          {
            idleMs: COMPACTION_EVERY_MS,
            firstDelayMs: COMPACTION_FIRST_MS,
            what: 'packing events past the hot window',
            log: console.error,
          },
        );
  const backfill = buildMissingStorms(store, () => closing).catch((error: unknown) => {
    console.error('building the storms of earlier events failed; they are built on the next start', error);
  });
  const { port } = server.address() as AddressInfo;
  const hostForUrl = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostForUrl}:${port}`,
    store,
    async close() {
      closing = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await backfill;
      await folds.stop();
      await folder.stop();
      await replays.stop();
      await retention.stop();
      await compaction?.stop();
      await alerts.stop();
      await store.close();
    },
  };
}
