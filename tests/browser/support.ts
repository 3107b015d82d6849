import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { type RunningServer, startServer } from '../../api/server.ts';
import { debianProgramMissing } from '../support/debian-tool.ts';

/** Debian's package; a test tool's own browser download is never used. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether this machine lacks the browser, so that a suite skips (an error in CI). Debian's Chromium is the one. */
export function chromiumMissing(): boolean {
  return debianProgramMissing(CHROMIUM, 'chromium', 'Browser suite');
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Builds the dashboard into dist/web (what the server serves), so no test ever runs against a stale build. */
export async function buildWeb(): Promise<void> {
  await build({
    configFile: join(REPO, 'vite.config.ts'),
    root: join(REPO, 'web'),
    logLevel: 'error',
  });
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface DemoServer extends RunningServer {
  /** GETs an API path (e.g. `/api/v1/summary?from=…`) and parses the JSON answer. */
  api<T>(path: string): Promise<T>;
  /** POSTs an NDJSON body to /api/v1/ingest; answers how many events were stored. */
  ingest(ndjson: string): Promise<number>;
}

/**
 * A real server on a free port over its own fresh data directory, with the demo day loaded; with `token`, it
 * requires that bearer token as `LENS_TOKEN` does (and `api` sends it).
 */
export async function startDemo(options: { token?: string } = {}): Promise<DemoServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lens-browser-'));
  const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, demo: true, token: options.token });
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  return {
    url: server.url,
    async api<T>(path: string): Promise<T> {
      const response = await fetch(server.url + path, { headers });
      if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
      return (await response.json()) as T;
    },
    async ingest(ndjson: string): Promise<number> {
      const response = await fetch(`${server.url}/api/v1/ingest`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-ndjson' },
        body: ndjson,
      });
      if (!response.ok) throw new Error(`ingest: HTTP ${response.status}`);
      return ((await response.json()) as { accepted: number }).accepted;
    },
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A page at 1440×900 that records script errors, so a test can say the screens it saw threw none. */
export async function openPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, errors };
}

/** A number as the dashboard shows it ("12,175") read back. */
export function readCount(text: string | null): number {
  return Number((text ?? '').replaceAll(',', ''));
}

/**
 * Sends a fixture file to a running server as a real client would (a discovery document, a log to ingest), and
 * answers its JSON; any refusal fails the test with the server's answer.
 */
export async function sendFixture(
  serverUrl: string,
  path: string,
  { method, type, file }: { method: string; type: string; file: string },
): Promise<unknown> {
  const response = await fetch(serverUrl + path, {
    method,
    headers: { 'content-type': type },
    body: readFileSync(file, 'utf8'),
  });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}
