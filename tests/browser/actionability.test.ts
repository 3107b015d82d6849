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
    // 21 of the paper's failures (3 of them hidden) and 67 of the corpus's.
    expect(await table.getByTestId('actionability-fleet').textContent()).toContain(
      'All servers, 88 failures (3 hidden failures):',
    );
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
      'Hidden',
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
    // Two -32602s: D and P on every failure, nothing else; none hidden.
    expect(s01.slice(0, 8)).toEqual(['2', '0', '100 %', '100 %', '0 %', '0 %', '0 %', '0 %']);
    await shoot(page, 'act-screen-1280.png');

    await rows.filter({ hasText: 'release-desk' }).getByRole('button').click();
    await page.waitForURL(/server=release-desk/);
    const failures = page.getByTestId('actionability-failures').getByTestId('failure');
    await failures.first().waitFor();
    const evidence = await page.getByTestId('failure-list').getByTestId('bit-evidence').allTextContents();
    expect(evidence.some((text) => text.includes('response.error.data.resetsAt'))).toBe(true);
    await shoot(page, 'act-failures-1280.png');

    // With the HTTP status, all but the corpus's two timeouts (no answer, no status) and the paper's three hidden
    // failures (HTTP 200) are detected: 83 of 88.
    await page.getByTestId('actionability-view').selectOption('transport');
    await page.waitForURL(/view=transport/);
    expect(await table.getByTestId('actionability-fleet').textContent()).toContain('detected 94 %');
    // With the text read (the frame's fields and its text, not the status, as the paper reads them), the hidden ones
    // are detected, the corpus's failures by status alone (429s, 404s) are not: 56 of 88.
    await page.getByTestId('actionability-view').selectOption('content');
    await page.waitForURL(/view=content/);
    expect(await table.getByTestId('actionability-fleet').textContent()).toContain('detected 64 %');
    expect(errors).toEqual([]);
  });

  it("shows the server page's panel and an event's facts", async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/servers/paper-s10?${WINDOW}`);
    const panel = page.getByTestId('server-actionability');
    await panel.getByTestId('profile-list').first().waitFor();
    // From typed fields, then with the text read.
    expect(await panel.getByTestId('profile-list').allTextContents()).toEqual([
      '2 failures: detected',
      '2 failures: detected, what to do, cause, what to fix',
    ]);
    await panel.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: join(SHOTS, 'act-panel-1280.png') });

    await page.goto(`${server.url}/events?${WINDOW}&event=s004-01&at=${Date.parse('2026-08-20T10:01:00Z')}`);
    const bits = page.getByTestId('event-detail').getByTestId('bit-evidence').first();
    await bits.waitFor();
    const given = await bits.locator('.bit.on').allTextContents();
    expect(given).toEqual([expect.stringMatching(/^Detected/), expect.stringMatching(/^What to do/)]);
    expect(await bits.textContent()).toContain('response.error.code');
    expect(errors).toEqual([]);
  });

  it('shows the hidden failures with their text on the server page and the Actionability screen', async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/servers/paper-s09?${WINDOW}`);
    const panel = page.getByTestId('server-actionability');
    await panel.getByTestId('server-hidden-line').waitFor();
    expect(await panel.getByTestId('server-hidden-line').textContent()).toContain(
      'Of its 3 failures, 1 hidden failure',
    );
    const hidden = page.getByTestId('hidden-failures');
    await hidden.getByTestId('hidden-failure').first().waitFor();
    const rows = await hidden.getByTestId('hidden-failure').allTextContents();
    expect(rows).toHaveLength(1);
    // The text as the server wrote it (quoted by the page's style), and the rule that read it.
    expect(rows[0]).toContain('Invalid symbol (opens with an error)');
    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'hidden-server-1280.png'), fullPage: false });

    await page.goto(`${server.url}/actionability?${WINDOW}&view=content`);
    const list = page.getByTestId('hidden-failures');
    await list.getByTestId('hidden-failure').first().waitFor();
    const all = await list.getByTestId('hidden-failure').allTextContents();
    expect(all).toHaveLength(3);
    expect(all.join('\n')).toContain("Error: no record found for symbol 'TEST' (opens with an error)");
    expect(all.join('\n')).toContain('paper-s04');
    const s09 = page.getByTestId('actionability-row').filter({ hasText: 'paper-s09' });
    expect((await s09.locator('td').allTextContents())[1]).toBe('1');
    await shoot(page, 'hidden-actionability-1280.png');

    // An event's facts with its text read: the words that gave each.
    await page.goto(`${server.url}/events?${WINDOW}&event=s004-19&at=${Date.parse('2026-08-20T10:19:00Z')}`);
    const detail = page.getByTestId('event-detail');
    await detail.getByTestId('hidden-failure-note').waitFor();
    const read = detail.getByTestId('bit-evidence').nth(1);
    expect(await read.locator('.bit.on').allTextContents()).toEqual([
      expect.stringMatching(/^Detected/),
      expect.stringMatching(/^What to do/),
      expect.stringMatching(/^Cause/),
      'What to fixlimit',
    ]);
    await detail.screenshot({ path: join(SHOTS, 'hidden-event-1280.png') });
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
    await panel.getByTestId('profile-list').first().waitFor();
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await panel.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: join(SHOTS, 'act-panel-390.png') });
    expect(errors).toEqual([]);
  });
});
