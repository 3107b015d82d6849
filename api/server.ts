import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { openStore, type StoreConfig } from '../db/store.ts';
import { createApp } from './app.ts';
import { loadDemo } from './demo/load.ts';
import { type AppConfig, DEFAULT_CONFIG } from './env.ts';
import { DELIVERY_DEFAULTS } from './services/alerts/deliver.ts';
import { startAlertEngine } from './services/alerts/engine.ts';
import { seedDefaultRules } from './services/alerts/rules.ts';
import { buildMissingStorms } from './services/gate-maintenance.ts';
import { rederiveStoredFacts } from './services/stored-facts.ts';

export interface ServerOptions extends StoreConfig {
  host: string;
  port: number;
  token?: string | null;
  allowedOrigins?: readonly string[];
  /** Extra Host names to answer to, e.g. the name a reverse proxy forwards. */
  allowedHosts?: readonly string[];
  maxBodyBytes?: number;
  /** Load the generated demo federation before listening. */
  demo?: boolean;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

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

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const refusal = refuseUnsafeBind(options.host, options.token);
  if (refusal) throw new Error(refusal);
  const store = await openStore(options);
  // Before the gate is replayed from them (buildMissingStorms below), and before any batch can replay a partition.
  await rederiveStoredFacts(store);
  if (options.demo) await loadDemo(store, Date.now());
  await seedDefaultRules(store, Date.now());
  const config: AppConfig = {
    ...DEFAULT_CONFIG,
    token: options.token ?? null,
    allowedOrigins: options.allowedOrigins ?? [],
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_CONFIG.maxBodyBytes,
    allowedHosts: allowedHosts(options),
  };
  const app = createApp({ store, clock: Date.now, config });
  if (existsSync(WEB_ROOT)) {
    app.use('/*', serveStatic({ root: WEB_ROOT }));
    // Every other non-API path is a screen of the single-page app; unknown API paths keep their JSON 404.
    app.get('*', (c, next) =>
      c.req.path.startsWith('/api/') ? next() : serveStatic({ root: WEB_ROOT, path: 'index.html' })(c, next),
    );
  }
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, () => resolve(s));
  });
  const alerts = startAlertEngine(store, { ...DELIVERY_DEFAULTS, tickMs: ALERT_TICK_MS, log: console.error });
  let closing = false;
  const backfill = buildMissingStorms(store, () => closing).catch((error: unknown) => {
    console.error('building the storms of earlier events failed; they are built on the next start', error);
  });
  const { port } = server.address() as AddressInfo;
  const hostForUrl = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostForUrl}:${port}`,
    async close() {
      closing = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await backfill;
      await alerts.stop();
      await store.close();
    },
  };
}
