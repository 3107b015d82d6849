import { createApp } from '../../api/app.ts';
import { type AppConfig, DEFAULT_CONFIG } from '../../api/env.ts';
import type { Store } from '../../db/runner.ts';

export const TEST_NOW = Date.parse('2026-11-02T12:00:00Z');

/** The real application over a real store, with a fixed clock; requests go through `app.request()`. */
export function createTestApp(store: Store, config: Partial<AppConfig> = {}) {
  return createApp({ store, clock: () => TEST_NOW, config: { ...DEFAULT_CONFIG, ...config } });
}

export type TestApp = ReturnType<typeof createTestApp>;

/** POSTs an NDJSON body built from objects (or raw lines, for malformed input). */
export function postNdjson(app: TestApp, lines: readonly (object | string)[], headers: Record<string, string> = {}) {
  const body = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');
  return app.request('/api/v1/ingest', {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1:7700', ...headers },
    body,
  });
}

export function get(app: TestApp, path: string, headers: Record<string, string> = {}) {
  return app.request(path, { headers: { host: '127.0.0.1:7700', ...headers } });
}

export function putJson(app: TestApp, path: string, body: unknown) {
  return app.request(path, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', host: '127.0.0.1:7700' },
    body: JSON.stringify(body),
  });
}
