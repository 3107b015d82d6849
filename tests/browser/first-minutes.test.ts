/**
 * A newcomer's first minutes: a log recorded four days ago, uploaded into an empty server through the Ingest screen,
 * must not end on an overview of zeros. The Ingest screen says when the events happened and opens exactly that
 * window; the overview, on its default 24 hours, says where the stored events are and goes there in one click.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { BUCKETS } from '../../shared/classify/types.ts';
import { readSpan, spanText, spanWindow } from '../../web/prepare/span.ts';
import { corpusPath } from '../support/corpus.ts';
import { buildWeb, chromiumMissing, launchBrowser, openPage, readCount } from './support.ts';

const DAY_MS = 86_400_000;
/** An ISO date-time with a zone: the times a line carries (`ts`, a refusal's `resetsAt`), not a protocol version. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface Summary {
  overall: { total: number; buckets: Record<string, number> };
}

/** Every time in a value moved by `delta` ms, so that the log keeps its own rhythm (a refusal still lapses on time). */
function shifted(value: unknown, delta: number): unknown {
  if (typeof value === 'string' && INSTANT.test(value)) return new Date(Date.parse(value) + delta).toISOString();
  if (Array.isArray(value)) return value.map((item) => shifted(item, delta));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shifted(item, delta)]));
  }
  return value;
}

/** The recorded MCP Python client log, its newest event four days before now. */
function fourDaysOld(): { text: string; lines: number } {
  const events = readFileSync(corpusPath('mcp-python', 'client.ndjson'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { ts: string });
  const newest = Math.max(...events.map((event) => Date.parse(event.ts)));
  const delta = Date.now() - 4 * DAY_MS - newest;
  return { text: `${events.map((event) => JSON.stringify(shifted(event, delta))).join('\n')}\n`, lines: events.length };
}

let browser: Browser;
let dir: string;
/** Each test's own server, over its own empty data directory. */
let server: RunningServer;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  dir = mkdtempSync(join(tmpdir(), 'lens-first-minutes-'));
  [, browser] = await Promise.all([buildWeb(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  if (skipped) return;
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir: mkdtempSync(join(dir, 'data-')) });
});

afterEach(async () => server?.close());

async function api<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(server.url + path, init);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

async function storedSpan() {
  return readSpan(await api<{ first: string | null; last: string | null }>('/api/v1/span'));
}

/** The overview's totals once loaded, against /summary over the window in the page's address. */
async function overviewTotals(page: Page): Promise<{ shown: number; counted: number; window: string }> {
  const total = page.getByTestId('total-requests');
  await expect.poll(async () => readCount(await total.textContent()), { timeout: 15_000 }).toBeGreaterThan(0);
  const url = new URL(page.url());
  const window = `from=${encodeURIComponent(url.searchParams.get('from') ?? '')}&to=${encodeURIComponent(url.searchParams.get('to') ?? '')}`;
  const summary = await api<Summary>(`/api/v1/summary?${window}`);
  for (const bucket of BUCKETS) {
    expect(readCount(await page.getByTestId(`total-${bucket}`).textContent()), bucket).toBe(
      summary.overall.buckets[bucket],
    );
  }
  return { shown: readCount(await total.textContent()), counted: summary.overall.total, window };
}

describe.skipIf(skipped)("a newcomer's first minutes", () => {
  it('an empty store says so on the overview, and where to put something in it', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}/`);
    const offer = page.getByTestId('empty-range-offer');
    await expect.poll(() => offer.textContent()).toMatch(/^Nothing is stored yet\./);
    await offer.getByRole('link', { name: 'Upload a log' }).click();
    expect(new URL(page.url()).pathname).toBe('/ingest');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('uploads a four-day-old log, says when its events happened, and opens exactly them in one click', async () => {
    const { text, lines } = fourDaysOld();
    const file = join(dir, 'client.ndjson');
    writeFileSync(file, text);
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}/ingest`);
    await page.locator('input[type="file"]').setInputFiles(file);
    await page.locator('.upload-done').waitFor();
    expect(readCount(await page.getByTestId('ingest-accepted').textContent())).toBe(lines);

    // What the screen says is what the store holds: the upload was the first, so the two spans are one.
    const stored = await storedSpan();
    expect(stored).not.toBeNull();
    if (stored === null) return;
    expect(stored.last).toBeLessThan(Date.now() - 4 * DAY_MS + 60_000);
    const arrived = page.getByTestId('ingest-span');
    expect(await arrived.textContent()).toContain(spanText(stored));
    expect(await page.getByTestId('stored-span').textContent()).toContain(spanText(stored).replace(' – ', ' to '));
    expect(await page.getByTestId('stored-events').textContent()).toContain('No request was logged in the last hour.');

    await arrived.getByTestId('view-span').click();
    const url = new URL(page.url());
    expect(url.pathname).toBe('/');
    const window = spanWindow(stored);
    expect([url.searchParams.get('from'), url.searchParams.get('to')]).toEqual([
      new Date(window.from).toISOString(),
      new Date(window.to).toISOString(),
    ]);
    const { shown, counted } = await overviewTotals(page);
    expect(shown).toBe(counted);
    expect(shown).toBe(lines);
    expect(await page.getByTestId('empty-range-offer').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('on its default 24 hours, the overview says where the stored events are and goes there in one click', async () => {
    const { text, lines } = fourDaysOld();
    const sent = await api<{ accepted: number }>('/api/v1/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: text,
    });
    expect(sent.accepted).toBe(lines);
    const stored = await storedSpan();
    expect(stored).not.toBeNull();
    if (stored === null) return;
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}/`);
    const offer = page.getByTestId('empty-range-offer');
    await expect.poll(() => offer.textContent()).toContain('No requests in the last 24 hours.');
    expect(await offer.textContent()).toContain(spanText(stored).replace(' – ', ' to '));
    expect(await offer.textContent()).toContain('4 days ago');
    expect(readCount(await page.getByTestId('total-requests').textContent())).toBe(0);

    await offer.getByTestId('show-stored').click();
    const { shown, counted } = await overviewTotals(page);
    expect(shown).toBe(counted);
    expect(shown).toBe(lines);
    await expect.poll(() => offer.count()).toBe(0);
    await page.getByTestId('series').locator('.empty').waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
    await page.close();
  });
});
