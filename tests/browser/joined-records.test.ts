import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { buildWeb, chromiumMissing, launchBrowser, openPage, sendFixture } from './support.ts';

/**
 * One request seen by a client and by nginx, stored as two records and joined: the events screen shows both, says
 * which one counts, and links one to the other. The world is the mcp-python corpus alone, on a fresh server.
 */

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/mcp-python/', import.meta.url));
/** Where the screenshots go, for a person to look at the layout. */
const SHOTS = process.env.JOINED_SHOTS ?? join(tmpdir(), 'joined-shots');
/** The corpus was recorded on 2 Dec 2026 between 02:42:42 and 02:43:06 UTC. */
const WINDOW = 'from=2026-12-02T02:42:00.000Z&to=2026-12-02T02:44:00.000Z';
const COUNTED_ONCE = "Counted once, with the client's view: the proxy's record is kept for what it saw.";
/** nginx's $request_id for burst-005, the 5th request of a burst answered 429 by nginx's own rate limit. */
const BURST_REQUEST_ID = '43c3c35f5a932823bb54b595f94bf947';

let browser: Browser;
let server: RunningServer;
let dataDir: string;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  dataDir = mkdtempSync(join(tmpdir(), 'lens-joined-'));
  mkdirSync(SHOTS, { recursive: true });
  const [, launched, started] = await Promise.all([
    buildWeb(),
    launchBrowser(),
    startServer({ host: '127.0.0.1', port: 0, dataDir }),
  ]);
  browser = launched;
  server = started;
  // The contract first, so that the 404s of the probes read against it; then the client's log, then nginx's.
  await sendFixture(server.url, '/api/v1/servers/release-desk/discovery', {
    method: 'PUT',
    type: 'application/json',
    file: join(CORPUS, 'discovery.json'),
  });
  const client = await sendFixture(server.url, '/api/v1/ingest', {
    method: 'POST',
    type: 'application/x-ndjson',
    file: join(CORPUS, 'client.ndjson'),
  });
  const proxy = await sendFixture(server.url, '/api/v1/ingest?format=nginx-json&server=release-desk', {
    method: 'POST',
    type: 'text/plain',
    file: join(CORPUS, 'nginx-access.json.log'),
  });
  expect([client, proxy]).toMatchObject([{ accepted: 120 }, { accepted: 120 }]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A definition list as the reader sees it: each term with its description. */
function definitions(list: Locator): Promise<Record<string, string>> {
  return list.evaluate((dl) => {
    const read: Record<string, string> = {};
    for (const dt of dl.querySelectorAll('dt')) {
      const dd = dt.nextElementSibling;
      if (dd?.tagName === 'DD') read[dt.textContent ?? ''] = dd.textContent ?? '';
    }
    return read;
  });
}

/** The pair table's column heads, client's first. */
function pairHeads(detail: Locator): Promise<string[]> {
  return detail.getByTestId('record-pair').locator('thead th').allTextContents();
}

async function phonePage(): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(browser);
  await opened.page.setViewportSize({ width: 390, height: 844 });
  return opened;
}

/** The window from the top of the page: the detail is sticky beside the list at this width. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, name) });
}

/** How far the page is wider than its window: a phone layout must not scroll sideways. */
function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

describe.skipIf(skipped)('a request logged by its client and by nginx', () => {
  it('shows both records of a 429, says which one counts, and links from one to the other and back', async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    // Every record listed (the toggle): the proxy's copy of a request is a row of its own.
    await page.goto(`${server.url}/events?${WINDOW}&bucket=throttled&records=all`);
    const rows = page.getByTestId('event-table').locator('.event-row');
    const clientRow = rows.filter({ hasText: '02:42:57.519' });
    const proxyRow = rows.filter({ hasText: '02:42:57.521' });
    await clientRow.waitFor();

    // In the list, the proxy's copy of the request is marked as left out of the counts; the client's is not.
    expect(await proxyRow.textContent()).toContain('sync-bot/3.1 mcp-python/2.3.0 → release-desk');
    expect(await proxyRow.getAttribute('class')).toContain('not-counted');
    expect(await proxyRow.locator('.ev-note').textContent()).toBe('not counted: joined to client record');
    expect(await clientRow.locator('.ev-note').count()).toBe(0);

    await clientRow.click();
    await page.waitForURL(/event=burst-005&at=\d+/);
    const detail = page.getByTestId('event-detail');
    expect(await detail.getByTestId('record-of').textContent()).toBe("Client's record");
    const joined = detail.getByTestId('joined-records');
    await joined.getByTestId('counted-line').waitFor();
    expect(await joined.getByTestId('counted-line').textContent()).toBe(COUNTED_ONCE);
    expect(await pairHeads(detail)).toEqual(["Client's recordshown above", "Proxy's recordOpen the proxy's record"]);
    const facts = await definitions(joined.getByTestId('proxy-facts'));
    expect(facts).toMatchObject({
      'Request id': BURST_REQUEST_ID,
      // nginx answered the 429 from its own rate limit: no upstream was asked.
      'Upstream status': 'none logged',
      Timing: '0 ms, logged 2 Dec 02:42:57.521 UTC',
      'User agent': 'sync-bot/3.1 mcp-python/2.3.0',
    });
    await shoot(page, 'client-record-1280.png');

    await joined.getByRole('link', { name: "Open the proxy's record" }).click();
    await page.waitForURL(/event=px%3A[0-9a-f]+&at=\d+/);
    await expect
      .poll(() => detail.getByTestId('record-of').textContent())
      .toBe("Proxy's record · not counted: joined to client record");
    expect(await proxyRow.getAttribute('aria-pressed')).toBe('true');
    expect(await joined.getByTestId('counted-line').textContent()).toBe(COUNTED_ONCE);
    expect(await pairHeads(detail)).toEqual(["Client's recordOpen the client's record", "Proxy's recordshown above"]);
    expect(await definitions(joined.getByTestId('proxy-facts'))).toMatchObject({ 'Request id': BURST_REQUEST_ID });
    await detail.getByText('Request frame: not logged (a proxy access log carries no JSON-RPC body).').waitFor();
    await shoot(page, 'proxy-record-1280.png');

    await joined.getByRole('link', { name: "Open the client's record" }).click();
    await page.waitForURL(/event=burst-005&at=\d+/);
    await expect.poll(() => detail.getByTestId('record-of').textContent()).toBe("Client's record");
    expect(await clientRow.getAttribute('aria-pressed')).toBe('true');
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the upstream's 502 from a link to the client's record, and fits a phone", async () => {
    const { page, errors } = await phonePage();
    const at = Date.parse('2026-12-02T02:43:01.299Z');
    await page.goto(`${server.url}/events?${WINDOW}&records=all&event=upstream-down-001&at=${at}`);
    const detail = page.getByTestId('event-detail');
    const joined = detail.getByTestId('joined-records');
    await joined.getByTestId('proxy-facts').waitFor();
    expect(await definitions(joined.getByTestId('proxy-facts'))).toMatchObject({
      'Request id': '601212555cadac2fc94dac8585190ee6',
      'Upstream status': '502',
      'User agent': 'edge-agent/1.0 mcp-python/2.3.0',
    });
    expect(await sidewaysOverflow(page)).toBe(0);
    await detail.screenshot({ path: join(SHOTS, 'client-record-390.png') });

    await joined.getByRole('link', { name: "Open the proxy's record" }).click();
    await expect
      .poll(() => detail.getByTestId('record-of').textContent())
      .toBe("Proxy's record · not counted: joined to client record");
    // The detail sits above the list on a phone: following the link brings the other record's top into view.
    await expect
      .poll(() => detail.evaluate((aside) => Math.abs(Math.round(aside.getBoundingClientRect().top))))
      .toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    await detail.screenshot({ path: join(SHOTS, 'proxy-record-390.png') });

    // The list below: the proxy's records are marked, at phone width too.
    await page.getByTestId('event-table').locator('.event-row.not-counted').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'event-list-390.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});
