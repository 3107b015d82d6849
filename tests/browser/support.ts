import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** Which run built dist/web last, and the lock the build is made under (beside it: a build empties dist/web). */
const BUILT_BY = join(REPO, 'dist', '.web-built-by');
const BUILD_LOCK = join(REPO, 'dist', '.web-build-lock');
/** A lock older than any build is left over from a run that was killed. */
const STALE_LOCK_MS = 5 * 60_000;

let built: Promise<void> | undefined;

/**
 * Builds the dashboard into dist/web (what the server serves) once per test run, so no test runs against a stale
 * build. Once: browser test files run in parallel worker processes, and a build empties dist/web, so a build started
 * by one file blanked another file's page while it loaded its scripts (that file then timed out waiting for rows).
 * The workers of one run share their parent, the vitest process: its pid names the run.
 */
export function buildWeb(): Promise<void> {
  built ??= buildOncePerRun(String(process.ppid));
  return built;
}

async function buildOncePerRun(run: string): Promise<void> {
  mkdirSync(join(REPO, 'dist'), { recursive: true });
  for (;;) {
    if (readText(BUILT_BY) === run) return;
    if (!takeLock()) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    try {
      if (readText(BUILT_BY) !== run) {
        await build({ configFile: join(REPO, 'vite.config.ts'), root: join(REPO, 'web'), logLevel: 'error' });
        writeFileSync(BUILT_BY, run);
      }
    } finally {
      rmSync(BUILD_LOCK, { recursive: true, force: true });
    }
    return;
  }
}

function takeLock(): boolean {
  try {
    mkdirSync(BUILD_LOCK);
    return true;
  } catch {
    const age = Date.now() - (statSafe(BUILD_LOCK)?.mtimeMs ?? Date.now());
    if (age > STALE_LOCK_MS) rmSync(BUILD_LOCK, { recursive: true, force: true });
    return false;
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function statSafe(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
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
