/**
 * The storms of the recorded MCP Python SDK traffic as an operator meets them: titled by actor and fault on the
 * overview, the server's own re-sent sampling request filed under the server (never "a correct client"), and each
 * storm's timeline saying what every attempt sent. Screenshots at desktop and phone width go to the temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { corpusPath, expectedOf } from '../support/corpus.ts';
import { buildWeb, chromiumMissing, launchBrowser, openPage, sendFixture } from './support.ts';

const RANGE = 'from=2026-12-01T00%3A00%3A00.000Z&to=2026-12-03T00%3A00%3A00.000Z';
const skipped = chromiumMissing();
let browser: Browser;
let server: RunningServer;
let dir: string;
const shots = mkdtempSync(join(tmpdir(), 'lens-storm-shots-'));

beforeAll(async () => {
  if (skipped) return;
  dir = mkdtempSync(join(tmpdir(), 'lens-storms-'));
  [, browser, server] = await Promise.all([
    buildWeb(),
    launchBrowser(),
    startServer({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'data') }),
  ]);
  const file = (name: string) => corpusPath('mcp-python', name);
  await sendFixture(server.url, '/api/v1/servers/release-desk/discovery', {
    method: 'PUT',
    type: 'application/json',
    file: file('discovery.json'),
  });
  await sendFixture(server.url, '/api/v1/ingest', {
    method: 'POST',
    type: 'application/x-ndjson',
    file: file('client.ndjson'),
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skipped)('retry storms in the dashboard', () => {
  it('lists each storm of the corpus once on the overview, by its title', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}/?${RANGE}`);
    const panel = page.getByTestId('storms-panel');
    await panel.locator('li').first().waitFor();
    const titles = await panel.getByTestId('storm-row-title').allTextContents();
    const expected = expectedOf('mcp-python').storms.map((s) => s.title);
    // The overview shows the six worst; every one it shows is one of the corpus's storms, none twice.
    expect(titles.length).toBe(Math.min(6, expected.length));
    for (const title of titles) expect(expected).toContain(title);
    expect(new Set(titles).size).toBe(titles.length);
    await page.screenshot({ path: join(shots, 'overview-storms-1280.png'), fullPage: false });
    expect(errors).toEqual([]);
  });

  for (const width of [1280, 390]) {
    it(`files the server's re-sent sampling request under the server, at ${width} px`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`${server.url}/servers/release-desk?${RANGE}`);
      const row = page
        .getByTestId('storm-table')
        .locator('tbody tr', { hasText: 'release-desk re-sent a denied sampling request 6 times to represent' });
      await row.getByRole('link', { name: 'Retry loop' }).click();
      await page.getByTestId('storm-title').waitFor();
      expect(await page.getByTestId('storm-title').textContent()).toBe(
        'release-desk re-sent a denied sampling request 6 times to represent',
      );
      expect(await page.getByTestId('storm-sender').textContent()).toContain("this storm is the server's conduct");
      expect(await page.getByText('A correct client:').count()).toBe(0);
      expect(await page.getByText('A correct server:').count()).toBe(1);
      const timeline = page.getByTestId('timeline');
      expect(await timeline.getByText('sampling/createMessage').count()).toBeGreaterThan(0);
      await page.screenshot({ path: join(shots, `storm-sampling-${width}.png`), fullPage: true });
      await page.close();
    });
  }

  it("shows the prober's probe storm with the method of each attempt", async () => {
    const { page } = await openPage(browser);
    await page.goto(`${server.url}/servers/release-desk?${RANGE}`);
    const table = page.getByTestId('storm-table');
    await table.getByRole('link', { name: 'Probe storm' }).click();
    await page.getByTestId('storm-title').waitFor();
    expect(await page.getByTestId('storm-title').textContent()).toMatch(/^prober probed 3 undeclared endpoints/);
    expect(await page.getByTestId('storm-attempts').textContent()).toBe('12');
    const methods = await page.getByTestId('timeline').locator('tbody tr td:nth-child(3)').allTextContents();
    expect(methods).toContain('initialize');
    expect(methods).toContain('no body');
    await page.screenshot({ path: join(shots, 'storm-probe-1440.png'), fullPage: true });
    await page.close();
  });
});
