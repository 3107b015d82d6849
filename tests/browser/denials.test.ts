import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { inBetweenScenario } from '../support/in-between.ts';
import { buildWeb, chromiumMissing, launchBrowser, openPage, readCount, sendFixture } from './support.ts';

/**
 * Denials that did not hold, as a person sees them: the mcp-python corpus's `represent` client had its sampling
 * request and its tools/call refused in one session and granted in the next. The Clients screen and the server's page
 * list both, each linking to its two events, with the replays the store did get right.
 */

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/mcp-python/', import.meta.url));
const SHOTS = process.env.DENIAL_SHOTS ?? join(tmpdir(), 'denial-shots');
/** The corpus was recorded on 2 Dec 2026 between 02:42:42 and 02:43:06 UTC. */
const WINDOW = 'from=2026-12-02T02:42:00.000Z&to=2026-12-02T02:44:00.000Z';

/** MCP 2026-07-28 denials with each kind of "in between", a month before the corpus (its own window). */
const BETWEEN = inBetweenScenario();

let browser: Browser;
let server: RunningServer;
let dataDir: string;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  dataDir = mkdtempSync(join(tmpdir(), 'lens-denials-'));
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
  await sendFixture(server.url, '/api/v1/ingest', {
    method: 'POST',
    type: 'application/x-ndjson',
    file: join(CORPUS, 'client.ndjson'),
  });
  const response = await fetch(`${server.url}/api/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: `${BETWEEN.events.map((e) => JSON.stringify(e)).join('\n')}\n`,
  });
  expect(response.status).toBe(200);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The denials panel once its numbers are in: its total, and the text of each row. */
async function readPanel(page: Page) {
  const panel = page.getByTestId('denials-not-held');
  await panel.getByTestId('denials-total').waitFor();
  const rows = await panel.getByTestId('denial-row').allTextContents();
  const replays = await panel.getByTestId('represented-refusals').locator('tbody tr').allTextContents();
  return { total: readCount(await panel.getByTestId('denials-total').textContent()), rows, replays };
}

async function shoot(page: Page, name: string): Promise<void> {
  const panel = page.getByTestId('denials-not-held');
  await panel.scrollIntoViewIfNeeded();
  await panel.screenshot({ path: join(SHOTS, name) });
}

describe.skipIf(skipped)('denials that did not hold', () => {
  it('lists both on the Clients screen, each across a new session, and opens the later answer', async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/clients?${WINDOW}`);
    const { total, rows, replays } = await readPanel(page);
    expect(total).toBe(2);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toContain('new session');
    expect(rows.some((row) => row.includes('sampling/createMessage'))).toBe(true);
    expect(rows.some((row) => row.includes('tools/call'))).toBe(true);
    // The store replayed the sampling denial five times in the first connection, and forgot it in the second.
    expect(replays).toContainEqual(expect.stringMatching(/^represent\s*5\s*2$/));
    await shoot(page, 'denials-clients-1280.png');

    await page.getByTestId('denial-answer').first().click();
    await page.waitForURL(/event=represent-01[56]/);
    await page.getByTestId('event-detail').waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the server's own on its page, and fits a phone", async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/servers/release-desk?${WINDOW}`);
    expect((await readPanel(page)).total).toBe(2);
    const refusal = page.getByTestId('denial-refusal').first();
    expect(await refusal.getAttribute('href')).toMatch(/event=represent-00[45]/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await shoot(page, 'denials-server-390.png');
    await page.setViewportSize({ width: 1280, height: 900 });
    await shoot(page, 'denials-server-1280.png');
    await page.goto(`${server.url}/clients?${WINDOW}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await readPanel(page);
    await shoot(page, 'denials-clients-390.png');
    expect(errors).toEqual([]);
    await page.close();
  });

  it.each([1280, 390])(
    'says what came between for MCP 2026-07-28 denials: a re-probe, a restart, neither (%i px)',
    async (width) => {
      const { from, to } = BETWEEN;
      const { page, errors } = await openPage(browser);
      await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
      const range = `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
      await expect
        .poll(async () => {
          await page.goto(`${server.url}/clients?${range}`);
          return (await readPanel(page)).total;
        })
        .toBe(5);
      // Oldest first, as the API lists them: the four 2026-07-28 denials, then the 2025 one.
      expect(await page.getByTestId('denial-between').allTextContents()).toEqual([
        're-probed',
        'client restarted',
        'no re-probe, same client',
        'no re-probe, client unnamed',
        'new session',
      ]);
      if (width < 600) {
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      }
      await shoot(page, `denials-between-${width}.png`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
