import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { buildWeb, chromiumMissing, launchBrowser, openPage, sendFixture } from './support.ts';

/**
 * MCP 2026-07-28 on the dashboard (issue 36): an MRTR round's event view, the eras a server answers, the eras each
 * client speaks. The world is the mcp-ts-v2 corpus as an operator sends it: each server's discovery document, the
 * client log, and nginx's JSON log.
 */

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/mcp-ts-v2/', import.meta.url));
/** Where the screenshots go, for a person to look at the layout. */
const SHOTS = process.env.ERAS_SHOTS ?? join(tmpdir(), 'eras-shots');
/** The corpus was recorded on 6 Dec 2026 between 01:49:34 and 01:49:55 UTC. */
const WINDOW = 'from=2026-12-06T01:49:00.000Z&to=2026-12-06T01:51:00.000Z';

let browser: Browser;
let server: RunningServer;
let dataDir: string;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  dataDir = mkdtempSync(join(tmpdir(), 'lens-eras-'));
  mkdirSync(SHOTS, { recursive: true });
  const [, launched, started] = await Promise.all([
    buildWeb(),
    launchBrowser(),
    startServer({ host: '127.0.0.1', port: 0, dataDir }),
  ]);
  browser = launched;
  server = started;
  const documents = JSON.parse(readFileSync(join(CORPUS, 'discovery.servers.json'), 'utf8')).servers;
  for (const [name, document] of Object.entries(documents)) {
    const response = await fetch(`${server.url}/api/v1/servers/${name}/discovery`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(document),
    });
    expect(response.status).toBe(200);
  }
  const client = await sendFixture(server.url, '/api/v1/ingest', {
    method: 'POST',
    type: 'application/x-ndjson',
    file: join(CORPUS, 'client.ndjson'),
  });
  const proxy = await sendFixture(server.url, '/api/v1/ingest?format=nginx-json', {
    method: 'POST',
    type: 'text/plain',
    file: join(CORPUS, 'nginx-access.json.log'),
  });
  expect([client, proxy]).toMatchObject([{ accepted: 107 }, { accepted: 107 }]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function pageAt(width: number): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(browser);
  await opened.page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
  return opened;
}

/** How far the page is wider than its window: a phone layout must not scroll sideways. */
function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** A definition list as the reader sees it: each term with its description. */
function definitions(list: Locator): Promise<Record<string, string>> {
  return list.evaluate((dl) => {
    const read: Record<string, string> = {};
    for (const dt of dl.querySelectorAll(':scope > dt')) {
      const dd = dt.nextElementSibling;
      if (dd?.tagName === 'DD') read[dt.textContent ?? ''] = dd.textContent ?? '';
    }
    return read;
  });
}

/** The Clients table's rows as the reader sees them: each client with what the Speaks column says. */
async function spoken(page: Page): Promise<Record<string, string>> {
  const table = page.getByTestId('client-table');
  await table.getByTestId('client-speaks').first().waitFor();
  return table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((row) => [
          row.querySelector('th')?.textContent ?? '',
          row.querySelector('[data-testid="client-speaks"]')?.textContent ?? '',
        ]),
      ),
    );
}

describe.skipIf(skipped)('MCP 2026-07-28 on the dashboard', () => {
  it.each([1280, 390])(
    "shows an MRTR round's era, what it did in its call, and links every round (%i px)",
    async (width) => {
      const { page, errors } = await pageAt(width);
      const at = Date.parse('2026-12-06T01:49:34.730Z');
      await page.goto(`${server.url}/events?${WINDOW}&event=harbor-agent-006&at=${at}`);
      const detail = page.getByTestId('event-detail');
      const rounds = detail.getByTestId('call-rounds');
      await rounds.waitFor();
      expect(await detail.getByTestId('event-era').textContent()).toBe('MCP 2026-07-28 (stateless)');
      expect(await rounds.getByTestId('round-headline').textContent()).toBe(
        'Round 2 of 2 of the call sent at 01:49:34 UTC.',
      );
      expect(await rounds.textContent()).toContain('Answers an input request');
      expect(await rounds.locator('li').allTextContents()).toEqual([
        'Round 1 01:49:34.714 · the request · Input asked · input_required',
        'Round 2 (this event) 01:49:34.730 · with the answers · OK',
      ]);
      // On a phone the event sits above the list: the event itself is the picture.
      const shot = join(SHOTS, `mrtr-round-${width}.png`);
      await (width < 600 ? detail.screenshot({ path: shot }) : page.screenshot({ path: shot }));
      if (width < 600) expect(await sidewaysOverflow(page)).toBe(0);

      // Round 1, one click away: the round that asked for input.
      await rounds.getByRole('link', { name: 'Round 1' }).click();
      await page.waitForURL(/event=harbor-agent-005&at=\d+/);
      await expect
        .poll(() => rounds.getByTestId('round-headline').textContent())
        .toBe('Round 1 of 2 of the call sent at 01:49:34 UTC.');
      expect(await rounds.textContent()).toContain('Asks for input: the server answered input_required');
      // What the server asked inside its answer: a request of its own, with its identity.
      expect(await rounds.getByTestId('input-requests').textContent()).toMatch(
        /^confirm: elicitation\/create · identity atlas-notes:95eb2d4a7ddacafce0a059c8640a8cd0$/,
      );
      expect(await rounds.getByRole('link').allTextContents()).toEqual(['Round 2']);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it.each([1280, 390])(
    'shows which eras atlas-notes and ledger-legacy answer, and their input requests (%i px)',
    async (width) => {
      const { page, errors } = await pageAt(width);
      await page.goto(`${server.url}/servers/atlas-notes?${WINDOW}`);
      const eras = page.getByTestId('server-eras');
      await eras.getByTestId('era-headline').waitFor();
      expect(await eras.getByTestId('era-headline').textContent()).toBe('Answers 2025 and 2026-07-28 requests.');
      expect(await definitions(eras.getByTestId('input-requests'))).toEqual({
        'Asked for input': '5 rounds answered input_required',
        'Answers sent': '6 rounds carried the answers',
        'What it asked':
          'elicitation/create ×4, sampling/createMessage ×1; 2 asked again (its requests, each a send of its own identity)',
        'Calls that asked': '5',
        'Round trips per call': '2.0 (10 rounds of the calls that asked)',
      });
      await eras.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `server-atlas-notes-${width}.png`) });
      await eras.screenshot({ path: join(SHOTS, `server-atlas-notes-panel-${width}.png`) });

      await page.goto(`${server.url}/servers/ledger-legacy?${WINDOW}`);
      await expect
        .poll(() => eras.getByTestId('era-headline').textContent())
        .toBe('2025 onlyAnswers only 2025-era requests: 2026-07-28 clients fall back to sessions here.');
      expect(await eras.locator('.pill-warn').textContent()).toBe('2025 only');
      expect(await eras.textContent()).toContain('2 era probes of 2026-07-28 clients answered as a 2025-only server');
      expect(await eras.textContent()).toContain('This server asked for no input in this range.');
      await eras.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `server-ledger-legacy-${width}.png`) });
      await eras.screenshot({ path: join(SHOTS, `server-ledger-legacy-panel-${width}.png`) });
      if (width < 600) expect(await sidewaysOverflow(page)).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it.each([1280, 390])('says on the Clients screen which clients speak 2025 and which 2026 (%i px)', async (width) => {
    const { page, errors } = await pageAt(width);
    await page.goto(`${server.url}/clients?${WINDOW}`);
    const speaks = await spoken(page);
    expect(speaks).toMatchObject({
      'classic-client': '2025 only',
      'harbor-agent': '2026-07-28 only',
      'bridge-agent': '2025 and 2026-07-28',
      'impatient-agent': '2025 and 2026-07-28',
    });
    // Every client of the corpus is listed, and says something.
    expect(Object.keys(speaks)).toHaveLength(11);
    expect(await page.getByTestId('client-table').locator('.pill-warn').allTextContents()).toEqual(['2025 only']);
    expect(await page.getByTestId('only-2025').textContent()).toBe('Still speaking only 2025: classic-client.');
    await page.screenshot({ path: join(SHOTS, `clients-${width}.png`), fullPage: true });
    if (width < 600) expect(await sidewaysOverflow(page)).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
