import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostLogPath } from '../support/corpus.ts';
import {
  buildWeb,
  chromiumMissing,
  type DemoServer,
  launchBrowser,
  openPage,
  readCount,
  startDemo,
} from './support.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/mcp-python/', import.meta.url));
const SHOTS = process.env.INGEST_SHOTS ?? join(tmpdir(), 'ingest-shots');

let browser: Browser;
let demo: DemoServer;
let dir: string;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  dir = mkdtempSync(join(tmpdir(), 'lens-ingest-formats-'));
  const [, launched, started] = await Promise.all([buildWeb(), launchBrowser(), startDemo()]);
  browser = launched;
  demo = started;
});

afterAll(async () => {
  await browser?.close();
  await demo?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The lines of a log that hold a record. */
function lineCount(text: string): number {
  return text.split('\n').filter((line) => line.trim() !== '').length;
}

/** The Ingest screen with `file` dropped on it: the page, its errors, the ingest queries it sends and the held file. */
async function holdFile(file: string) {
  const { page, errors } = await openPage(browser);
  const queries = ingestQueries(page);
  await page.goto(`${demo.url}/ingest`);
  await page.locator('input[type="file"]').setInputFiles(file);
  return { page, errors, queries, held: page.getByTestId('held-file') };
}

/** The query strings of the ingest requests the page sends. */
function ingestQueries(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'POST' && url.pathname === '/api/v1/ingest') seen.push(url.search);
  });
  return seen;
}

describe.skipIf(skipped)('the Ingest screen with reverse-proxy access logs', () => {
  it('detects an nginx JSON log, sends it under the server typed, and stores every line', async () => {
    const source = join(CORPUS, 'nginx-access.json.log');
    const lines = lineCount(readFileSync(source, 'utf8'));
    expect(lines).toBe(120);
    const file = join(dir, 'nginx-access.json.log');
    copyFileSync(source, file);

    const { page, errors, queries, held } = await holdFile(file);
    await expect.poll(() => held.getByTestId('detected-format').textContent()).toBe('Detected: nginx JSON access log');
    expect(await held.getByLabel('Format').inputValue()).toBe('nginx-json');
    expect(queries).toEqual([]);

    await held.getByLabel('Server (optional)').fill('release-desk');
    await held.getByRole('button', { name: 'Send' }).click();
    await page.locator('.upload-done').waitFor();
    expect(queries).toEqual(['?format=nginx-json&server=release-desk']);
    expect(await page.getByTestId('sent-as').textContent()).toBe('nginx JSON access log · server release-desk');
    expect(readCount(await page.getByTestId('ingest-rejected').textContent())).toBe(0);
    expect(readCount(await page.getByTestId('ingest-accepted').textContent())).toBe(lines);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('decompresses a rotated, gzip-compressed log in the browser, for detection and for sending', async () => {
    // The A2A corpus's log: other requests than the plain copy's (a line's id is its text, so the same lines under
    // another server would be duplicates, as re-shipping a log must be).
    const text = readFileSync(join(CORPUS, '../a2a-js/nginx-access.json.log'), 'utf8');
    const lines = lineCount(text);
    const file = join(dir, 'access.log.2.gz');
    writeFileSync(file, gzipSync(text));

    const { page, errors, queries, held } = await holdFile(file);
    await expect.poll(() => held.getByTestId('detected-format').textContent()).toBe('Detected: nginx JSON access log');
    expect(await held.locator('.upload-head').textContent()).toContain('gzip');

    await held.getByLabel('Server (optional)').fill('relay-agent');
    await held.getByLabel('Protocol (optional)').selectOption('a2a');
    await held.getByRole('button', { name: 'Send' }).click();
    await page.locator('.upload-done').waitFor();
    expect(queries).toEqual(['?format=nginx-json&server=relay-agent&protocol=a2a']);
    expect(await page.locator('.upload-done').textContent()).toContain(`${lines} of ${lines} lines`);
    expect(readCount(await page.getByTestId('ingest-rejected').textContent())).toBe(0);
    expect(readCount(await page.getByTestId('ingest-accepted').textContent())).toBe(lines);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('detects an nginx combined log and reads every line of it', async () => {
    const source = join(CORPUS, 'nginx-access.combined.log');
    const lines = lineCount(readFileSync(source, 'utf8'));
    const file = join(dir, 'access.log.1');
    copyFileSync(source, file);

    const { page, errors, held } = await holdFile(file);
    await expect
      .poll(() => held.getByTestId('detected-format').textContent())
      .toBe('Detected: nginx combined access log');
    await held.getByLabel('Server (optional)').fill('release-desk-combined');
    await held.getByRole('button', { name: 'Send' }).click();
    await page.locator('.upload-done').waitFor();
    expect(readCount(await page.getByTestId('ingest-rejected').textContent())).toBe(0);
    // Whole-second times and no request id: requests alike within one second are one event (see the report).
    const accepted = readCount(await page.getByTestId('ingest-accepted').textContent());
    const duplicates = readCount(await page.getByTestId('ingest-duplicates').textContent());
    expect(accepted).toBeGreaterThan(0);
    expect(accepted + duplicates).toBe(lines);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lists warnings folded, with their total, when no server is named', async () => {
    const text = readFileSync(join(CORPUS, 'nginx-access.json.log'), 'utf8');
    const file = join(dir, 'unnamed.log');
    writeFileSync(file, text);

    const { page, errors, held } = await holdFile(file);
    await held.getByRole('button', { name: 'Send' }).click();
    await page.locator('.upload-done').waitFor();
    const warnings = readCount(await page.getByTestId('ingest-warnings').textContent());
    expect(warnings).toBeGreaterThan(0);
    const rows = page.getByTestId('warning-table').locator('tbody tr');
    expect(await rows.count()).toBeGreaterThan(0);
    expect(await rows.count()).toBeLessThanOrEqual(10);
    const counted = await rows.locator('td[data-label="Lines"]').allTextContents();
    expect(counted.reduce((sum, cell) => sum + readCount(cell), 0)).toBe(warnings);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says when it cannot tell the format, holds the file as native, and fits a phone while it waits', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'deploy started\ndeploy finished\n');
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const queries = ingestQueries(page);
    await page.goto(`${demo.url}/ingest`);
    await page.locator('input[type="file"]').setInputFiles(file);
    const held = page.getByTestId('held-file');
    await expect.poll(() => held.getByTestId('detected-format').textContent()).toMatch(/^Format not detected/);
    expect(await held.getByLabel('Format').inputValue()).toBe('native');
    expect(await held.getByLabel('Server (optional)').count()).toBe(0);

    await held.getByLabel('Format').selectOption('envoy');
    await held.getByLabel('Server (optional)').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);

    await held.getByRole('button', { name: 'Remove' }).click();
    expect(await held.count()).toBe(0);
    expect(queries).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skipped)('the Ingest screen with host logs whose times need a word', () => {
  it('asks when a log without times starts, sends it, and its records are stamped from it', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const file = join(dir, 'mcp-remote.log');
    copyFileSync(hostLogPath('mcp-remote/recorded-1.log'), file);
    const { page, errors, queries, held } = await holdFile(file);
    await page.setViewportSize({ width: 1280, height: 900 });
    await expect
      .poll(() => held.getByTestId('detected-format').textContent())
      .toBe('Detected: mcp-remote log (bridge; stderr or debug file)');
    expect(await held.getByLabel('Time zone of its times').count()).toBe(0);
    await held.getByLabel('Server (optional)').fill('remote-files');
    await held.getByLabel('When it starts (your time)').fill('2026-12-06T02:30:00');
    expect(await held.getByTestId('time-hint').textContent()).toContain('stamped from the start you give');
    await held.screenshot({ path: join(SHOTS, 'ingest-start-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await held.screenshot({ path: join(SHOTS, 'ingest-start-390.png') });

    // The browser reads the wall time in its own zone; the query carries the instant.
    const start = await page.evaluate(() => new Date('2026-12-06T02:30:00').toISOString());
    await held.getByRole('button', { name: 'Send' }).click();
    await page.locator('.upload-done').waitFor();
    expect(queries).toEqual([`?${new URLSearchParams({ format: 'mcp-remote', server: 'remote-files', start })}`]);
    expect(readCount(await page.getByTestId('ingest-rejected').textContent())).toBe(0);
    const range = `from=${new Date(Date.parse(start) - 60_000).toISOString()}&to=${new Date(Date.parse(start) + 3_600_000).toISOString()}`;
    const stored = await (
      await fetch(`${demo.url}/api/v1/events?server=remote-files&records=all&limit=1000&${range}`)
    ).json();
    const times = stored.events.map((e: { ts: string }) => Date.parse(e.ts));
    expect(times.length).toBeGreaterThan(16);
    // mcp-remote without --debug writes no times: line N is stamped start + N ms.
    expect(Math.min(...times) - Date.parse(start)).toBeGreaterThan(0);
    expect(Math.max(...times) - Date.parse(start)).toBeLessThan(1000);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('asks the zone of a log with local times (Cursor), not its start, and fits a phone', async () => {
    const file = join(dir, 'Cursor MCP.log');
    copyFileSync(hostLogPath('cursor/Cursor MCP.log'), file);
    const { page, errors, queries, held } = await holdFile(file);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect
      .poll(() => held.getByTestId('detected-format').textContent())
      .toBe('Detected: Cursor MCP log (lifecycle only; local times)');
    expect(await held.getByLabel('When it starts (your time)').count()).toBe(0);
    await held.getByLabel('Time zone of its times').fill('Europe/Berlin');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await held.screenshot({ path: join(SHOTS, 'ingest-zone-390.png') });
    await page.setViewportSize({ width: 1280, height: 900 });
    await held.screenshot({ path: join(SHOTS, 'ingest-zone-1280.png') });
    await held.getByRole('button', { name: 'Send' }).click();
    await page.locator('.upload-done').waitFor();
    expect(queries).toEqual(['?format=cursor&tz=Europe%2FBerlin']);
    expect(readCount(await page.getByTestId('ingest-rejected').textContent())).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
