import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { buildWeb, chromiumMissing, launchBrowser, openPage, sendFixture } from './support.ts';

/**
 * One request, one row (issue 35): the mcp-python corpus's 120 requests, each logged by its client and by nginx, on a
 * fresh server. The Events screen lists 120 requests, not 240 records; a row opens onto both its records; a toggle
 * lists the records; a server's failures on the Actionability screen are its 67 failures.
 */

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/mcp-python/', import.meta.url));
/** Where the screenshots go, for a person to look at the layout. */
const SHOTS = process.env.ONE_ROW_SHOTS ?? join(tmpdir(), 'one-row-shots');
/** The corpus was recorded on 2 Dec 2026 between 02:42:42 and 02:43:06 UTC. */
const WINDOW = 'from=2026-12-02T02:42:00.000Z&to=2026-12-02T02:44:00.000Z';
/** burst-005: the 5th request of a burst, answered 429 by nginx's own rate limit (the client logged 02:42:57.519). */
const BURST_AT = '02:42:57.519';

let browser: Browser;
let server: RunningServer;
let dataDir: string;
let requests: number;
let failures: number;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  dataDir = mkdtempSync(join(tmpdir(), 'lens-one-row-'));
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
    file: join(CORPUS, 'discovery.json'),
  });
  const client = (await sendFixture(server.url, '/api/v1/ingest', {
    method: 'POST',
    type: 'application/x-ndjson',
    file: join(CORPUS, 'client.ndjson'),
  })) as { accepted: number };
  const proxy = (await sendFixture(server.url, '/api/v1/ingest?format=nginx-json&server=release-desk', {
    method: 'POST',
    type: 'text/plain',
    file: join(CORPUS, 'nginx-access.json.log'),
  })) as { accepted: number };
  expect(proxy.accepted).toBe(client.accepted);
  requests = client.accepted;
  const expected = JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8')) as {
    events: Record<string, { bucket: string }>;
  };
  failures = Object.values(expected.events).filter((event) => event.bucket !== 'ok').length;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Loads every page of the list ("Load older" until none is left). */
async function loadAll(table: Locator): Promise<void> {
  const older = table.getByRole('button', { name: 'Load older' });
  while (await older.isVisible()) {
    const before = await table.locator('.event-row').count();
    await older.click();
    await expect.poll(() => table.locator('.event-row').count()).toBeGreaterThan(before);
  }
}

/** The pair table's column heads, client's first. */
function pairHeads(pair: Locator): Promise<string[]> {
  return pair.getByTestId('record-pair').locator('thead th').allTextContents();
}

function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, name) });
}

describe.skipIf(skipped)('a request logged by its client and by nginx is one row', () => {
  it('lists the requests, opens a row onto both its records, and lists the records with the toggle', async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/events?${WINDOW}`);
    const table = page.getByTestId('event-table');
    await table.locator('.event-row').first().waitFor();
    expect(await table.locator('h2').textContent()).toBe('Requests, newest first (times UTC)');
    expect(await table.getByTestId('rows-shown').textContent()).toBe(`50 of ${requests} requests shown`);
    await loadAll(table);
    expect(await table.locator('.event-row').count()).toBe(requests);
    expect(await table.getByTestId('rows-shown').textContent()).toBe(`${requests} of ${requests} requests shown`);
    // Every row is the client's record: none is the proxy's copy, left out of the counts.
    expect(await table.locator('.event-row.not-counted').count()).toBe(0);
    expect(await table.getByRole('button', { name: '2 records' }).count()).toBe(requests);

    // The 429 nginx answered itself: its row opens onto the client's record and the proxy's, side by side.
    const item = table.locator('li.request-item').filter({ hasText: BURST_AT });
    expect(await item.count()).toBe(1);
    const toggle = item.getByRole('button', { name: '2 records' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const pair = item.getByTestId('request-records');
    expect(await pair.getAttribute('id')).toBe(await toggle.getAttribute('aria-controls'));
    expect(await pairHeads(pair)).toEqual([
      "Client's recordOpen the client's record",
      "Proxy's recordOpen the proxy's record",
    ]);
    expect(await pair.getByTestId('counted-line').textContent()).toBe(
      "Counted once, with the client's view: the proxy's record is kept for what it saw.",
    );
    await shoot(page, 'events-requests-1280.png');
    await item.screenshot({ path: join(SHOTS, 'events-row-open-1280.png') });

    // Either record opens from the row; the row stays the one marked open.
    await pair.getByRole('link', { name: "Open the proxy's record" }).click();
    await page.waitForURL(/event=px%3A[0-9a-f]+&at=\d+/);
    const detail = page.getByTestId('event-detail');
    await expect
      .poll(() => detail.getByTestId('record-of').textContent())
      .toBe("Proxy's record · not counted: joined to client record");
    expect(await item.locator('.event-row').getAttribute('aria-pressed')).toBe('true');
    await toggle.click();
    expect(await item.getByTestId('request-records').count()).toBe(0);

    // The toggle: every record, both of each request, the proxy's marked as not counted; the open one stays open.
    await table.getByLabel('Every record').check();
    await page.waitForURL(/records=all/);
    await expect.poll(() => table.locator('h2').textContent()).toBe('Records, newest first (times UTC)');
    await expect.poll(() => table.getByTestId('rows-shown').textContent()).toBe(`50 of ${2 * requests} records shown`);
    expect(await table.getByTestId('rows-note').isVisible()).toBe(true);
    await loadAll(table);
    expect(await table.locator('.event-row').count()).toBe(2 * requests);
    expect(await table.locator('.event-row.not-counted').count()).toBe(requests);
    expect(await table.getByRole('button', { name: '2 records' }).count()).toBe(0);
    expect(await table.locator('.event-row[aria-pressed="true"]').count()).toBe(1);
    expect(await detail.getByTestId('record-of').textContent()).toContain("Proxy's record");
    await shoot(page, 'events-records-1280.png');

    await table.getByLabel('Every record').uncheck();
    await expect.poll(() => page.url()).not.toContain('records=all');
    // The pages of requests read before are kept: as many as were loaded, of the same total.
    await expect
      .poll(() => table.getByTestId('rows-shown').textContent())
      .toMatch(new RegExp(` of ${requests} requests shown$`));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('fits a phone: a row opens onto both records without scrolling sideways', async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/events?${WINDOW}`);
    const table = page.getByTestId('event-table');
    await table.locator('.event-row').first().waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'events-requests-390.png') });
    const item = table.locator('li.request-item').first();
    await item.getByRole('button', { name: '2 records' }).click();
    await item.getByTestId('record-pair').waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await item.screenshot({ path: join(SHOTS, 'events-row-open-390.png') });
    await table.getByLabel('Every record').check();
    await expect.poll(() => table.locator('.event-row.not-counted').count()).toBeGreaterThan(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'events-records-390.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("lists a server's failures once each, as many as the screen counts", async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/actionability?${WINDOW}&server=release-desk`);
    const list = page.getByTestId('failure-list');
    await list.waitFor();
    const shown = page.getByTestId('failures-shown');
    expect(await shown.textContent()).toBe(`25 of ${failures} failures shown`);
    const older = page.getByRole('button', { name: 'Older failures' });
    while (await older.isVisible()) {
      const before = await list.getByTestId('failure').count();
      await older.click();
      await expect.poll(() => list.getByTestId('failure').count()).toBeGreaterThan(before);
    }
    expect(await list.getByTestId('failure').count()).toBe(failures);
    expect(await shown.textContent()).toBe(`${failures} of ${failures} failures shown`);
    const first = list.getByTestId('failure').first();
    await first.getByRole('button', { name: '2 records' }).click();
    expect(await pairHeads(first.getByTestId('request-records'))).toEqual([
      "Client's recordOpen the client's record",
      "Proxy's recordOpen the proxy's record",
    ]);
    await first.screenshot({ path: join(SHOTS, 'failure-open-1280.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});
