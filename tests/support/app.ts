import { createApp } from '../../api/app.ts';
import { type AppConfig, DEFAULT_CONFIG } from '../../api/env.ts';
import { Folder } from '../../api/services/fold.ts';
import type { Store } from '../../db/runner.ts';

export const TEST_NOW = Date.parse('2026-11-02T12:00:00Z');

/** The real application over a real store, with a fixed clock; requests go through `app.request()`. */
export function createTestApp(store: Store, config: Partial<AppConfig> = {}) {
  const full = { ...DEFAULT_CONFIG, ...config };
  const folder = new Folder(store, { inlineReplayMax: full.inlineReplayMax });
  const app = createApp({ store, clock: () => TEST_NOW, config: full, folder });
  folders.set(app, folder);
  return app;
}

export type TestApp = ReturnType<typeof createTestApp>;

const folders = new WeakMap<TestApp, Folder>();

/** Once the folds the app's ingests asked for have run: the counts then cover every event it stored. */
export async function analysed(app: TestApp): Promise<void> {
  await folders.get(app)?.settled();
}

/**
 * POSTs an NDJSON body built from objects (or raw lines, for malformed input) and answers once the fold behind the
 * commit has counted it, as reads in a test expect; `postNdjsonUnfolded` answers as the server does, at the commit.
 */
export async function postNdjson(
  app: TestApp,
  lines: readonly (object | string)[],
  headers: Record<string, string> = {},
) {
  const response = await postNdjsonUnfolded(app, lines, headers);
  await analysed(app);
  return response;
}

export function postNdjsonUnfolded(
  app: TestApp,
  lines: readonly (object | string)[],
  headers: Record<string, string> = {},
) {
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
  return sendJson(app, 'PUT', path, body);
}

export function postJson(app: TestApp, path: string, body: unknown) {
  return sendJson(app, 'POST', path, body);
}

function sendJson(app: TestApp, method: 'POST' | 'PUT', path: string, body: unknown) {
  return app.request(path, {
    method,
    headers: { 'content-type': 'application/json', host: '127.0.0.1:7700' },
    body: JSON.stringify(body),
  });
}

/**
 * Every GET answer of the alerts API about a rule, by path (each checked to be a 200): where a target's secrets
 * must never appear.
 */
export async function alertAnswers(app: TestApp, ruleId: string): Promise<{ path: string; text: string }[]> {
  const paths = [
    '/api/v1/alerts/rules',
    `/api/v1/alerts/rules/${ruleId}`,
    '/api/v1/alerts',
    '/api/v1/alerts?resolved=1',
    '/api/v1/alerts/history',
    `/api/v1/alerts/history?rule=${ruleId}`,
    '/api/v1/alerts/deliveries',
    `/api/v1/alerts/deliveries?rule=${ruleId}`,
  ];
  const answers: { path: string; text: string }[] = [];
  for (const path of paths) {
    const res = await get(app, path);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    answers.push({ path, text: await res.text() });
  }
  return answers;
}
