import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { buildWeb, chromiumMissing, launchBrowser, openPage, sendFixture } from './support.ts';

/**
 * What a person sees of the six facts a failure can give a client (DOMAIN.md section 8): the paper's 21 failures
 * beside the mcp-python corpus's, on a fresh server. The servers ranked, one server's failures with the field that
 * gave each fact, the server page's panel, and an event's facts, each named in words.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
/** Where the screenshots go, for a person to look at the layout. */
const SHOTS = process.env.ACT_SHOTS ?? join(tmpdir(), 'act-shots');
/** The paper's sample is dated 20 Aug 2026, the corpus 2 Dec 2026: one range holds both. */
const WINDOW = 'from=2026-08-20T00:00:00.000Z&to=2026-12-03T00:00:00.000Z';

let browser: Browser;
let server: RunningServer;
let dataDir: string;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  dataDir = mkdtempSync(join(tmpdir(), 'lens-act-'));
  mkdirSync(SHOTS, { recursive: true });
  const [, launched, started] = await Promise.all([
    buildWeb(),
    launchBrowser(),
    startServer({ host: '127.0.0.1', port: 0, dataDir }),
  ]);
  browser = launched;
  server = started;
  await sendFixture(server.url, '/api/v1/servers/release-desk/discovery', {
    method: 'PUT',
    type: 'application/json',
    file: join(FIXTURES, 'corpus/mcp-python/discovery.json'),
  });
  const paper = await sendFixture(server.url, '/api/v1/ingest', {
    method: 'POST',
    type: 'application/x-ndjson',
    file: join(FIXTURES, 'actionability/seed-004.ndjson'),
  });
  const corpus = await sendFixture(server.url, '/api/v1/ingest', {
    method: 'POST',
    type: 'application/x-ndjson',
    file: join(FIXTURES, 'corpus/mcp-python/client.ndjson'),
  });
  expect([paper, corpus]).toMatchObject([{ accepted: 21 }, { accepted: 120 }]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function shoot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, name), fullPage: true });
}

function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

describe.skipIf(skipped)('the actionability of failures', () => {
  it('ranks the servers by facts per failure and opens one server’s failures with each fact’s field', async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/actionability?${WINDOW}`);
    const table = page.getByTestId('actionability-table');
    const rows = table.getByTestId('actionability-row');
    await rows.first().waitFor();
    // 21 of the paper's failures and 67 of the corpus's.
    expect(await table.getByTestId('actionability-fleet').textContent()).toContain('All servers, 88 failures:');
    const names = await rows.locator('th').allTextContents();
    expect(names).toHaveLength(11);
    // Servers answering -32602 alone earn two bits a failure; the corpus's earns policy, cause and replay on some
    // failures (seed 002's reasons) and nothing typed on others (its 429s and 404s): it ranks after them.
    expect(names.slice(0, 4)).toEqual(['paper-s01', 'paper-s02', 'paper-s03', 'release-desk']);
    expect(names.at(-1)).toMatch(/^paper-s(06|07|08|09|10)$/);
    const heads = await table.locator('thead th').allTextContents();
    expect(heads).toEqual([
      'Server',
      'Failures',
      'Detected',
      'What to do',
      'Cause',
      'What to fix',
      'Ready repair',
      'Retry rules',
      'Facts per failure',
      'Ahead of',
    ]);
    const s01 = await rows.filter({ hasText: 'paper-s01' }).locator('td').allTextContents();
    // Two -32602s: D and P on every failure, nothing else.
    expect(s01.slice(0, 7)).toEqual(['2', '100 %', '100 %', '0 %', '0 %', '0 %', '0 %']);
    await shoot(page, 'act-screen-1280.png');

    await rows.filter({ hasText: 'release-desk' }).getByRole('button').click();
    await page.waitForURL(/server=release-desk/);
    const failures = page.getByTestId('actionability-failures').getByTestId('failure');
    await failures.first().waitFor();
    const evidence = await page.getByTestId('failure-list').getByTestId('bit-evidence').allTextContents();
    expect(evidence.some((text) => text.includes('response.error.data.resetsAt'))).toBe(true);
    await shoot(page, 'act-failures-1280.png');

    // With the HTTP status, all but the corpus's two timeouts (no answer, no status) are detected: 86 of 88.
    await page.getByTestId('actionability-view').selectOption('transport');
    await page.waitForURL(/view=transport/);
    expect(await table.getByTestId('actionability-fleet').textContent()).toContain('detected 98 %');
    expect(errors).toEqual([]);
  });

  it("shows the server page's panel and an event's facts", async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/servers/paper-s10?${WINDOW}`);
    const panel = page.getByTestId('server-actionability');
    await panel.getByTestId('profile-list').waitFor();
    expect(await panel.getByTestId('profile-list').textContent()).toBe('2 failures: detected');
    await panel.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: join(SHOTS, 'act-panel-1280.png') });

    await page.goto(`${server.url}/events?${WINDOW}&event=s004-01&at=${Date.parse('2026-08-20T10:01:00Z')}`);
    const bits = page.getByTestId('event-detail').getByTestId('bit-evidence');
    await bits.waitFor();
    const given = await bits.locator('.bit.on').allTextContents();
    expect(given).toEqual([expect.stringMatching(/^Detected/), expect.stringMatching(/^What to do/)]);
    expect(await bits.textContent()).toContain('response.error.code');
    expect(errors).toEqual([]);
  });

  it('fits a phone: no sideways scrolling on the screen or the panel', async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/actionability?${WINDOW}&server=paper-s04`);
    await page.getByTestId('failure-list').waitFor();
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await shoot(page, 'act-screen-390.png');
    await page.goto(`${server.url}/servers/release-desk?${WINDOW}`);
    const panel = page.getByTestId('server-actionability');
    await panel.getByTestId('profile-list').waitFor();
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await panel.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: join(SHOTS, 'act-panel-390.png') });
    expect(errors).toEqual([]);
  });
});
