import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { hostLogPath } from '../support/corpus.ts';
import { buildWeb, chromiumMissing, launchBrowser, openPage, sendFixture } from './support.ts';

/**
 * Where records came from, on the dashboard (issue 37 item 3): a server known from a Claude Desktop log and an
 * mcp-remote log; its page lists both sources with their share of records with frames and what mcp-remote cannot
 * show; the cancelled call's event view names its log, lines and the host's cancel.
 */
const SHOTS = process.env.HOSTLOG_SHOTS ?? join(tmpdir(), 'hostlog-shots');
const WINDOW = 'from=2026-12-06T01:00:00.000Z&to=2026-12-06T03:00:00.000Z';

let browser: Browser;
let server: RunningServer;
let dataDir: string;
const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  dataDir = mkdtempSync(join(tmpdir(), 'lens-hostlogs-'));
  mkdirSync(SHOTS, { recursive: true });
  const [, launched, started] = await Promise.all([
    buildWeb(),
    launchBrowser(),
    startServer({ host: '127.0.0.1', port: 0, dataDir }),
  ]);
  browser = launched;
  server = started;
  const desktop = await sendFixture(
    server.url,
    '/api/v1/ingest?format=claude-desktop&file=mcp-server-tools-server.log',
    {
      method: 'POST',
      type: 'text/plain',
      file: hostLogPath('claude-desktop/mcp-server-tools-server.log'),
    },
  );
  const remote = await sendFixture(
    server.url,
    '/api/v1/ingest?format=mcp-remote&server=tools-server&start=2026-12-06T01:30:00.000Z',
    { method: 'POST', type: 'text/plain', file: hostLogPath('mcp-remote/recorded-1.log') },
  );
  const crashing = await sendFixture(server.url, '/api/v1/ingest?format=claude-code&server=crashing-files', {
    method: 'POST',
    type: 'text/plain',
    file: hostLogPath('claude-code/crash-loop.log'),
  });
  expect([desktop, remote, crashing]).toMatchObject([{ rejectedTotal: 0 }, { rejectedTotal: 0 }, { rejectedTotal: 0 }]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(skipped)('where records came from', () => {
  it("lists a server's sources with their share of records with frames and what a source cannot show", async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.goto(`${server.url}/servers/tools-server?${WINDOW}`);
    const panel = page.getByTestId('server-sources');
    await panel.getByTestId('source-row').first().waitFor();
    const rows = await panel.getByTestId('source-row').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows.find((row) => row.startsWith('Claude Desktop log'))).toMatch(/Claude Desktop log31\s*55\s%/);
    expect(rows.find((row) => row.startsWith('mcp-remote log'))).toContain('never logs an outcome');
    await panel.screenshot({ path: join(SHOTS, 'server-sources.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('names the log and lines of the cancelled call, and the host’s cancel', async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 1000 });
    const listed = await (await fetch(`${server.url}/api/v1/events?${WINDOW}&bucket=transient&limit=50`)).json();
    const cancelled = listed.events.find((e: { origin: { facts: { cancelled?: string } | null } }) =>
      e.origin.facts?.cancelled?.startsWith('MCP error'),
    );
    await page.goto(`${server.url}/events?${WINDOW}&event=${cancelled.id}&at=${Date.parse(cancelled.ts)}`);
    const detail = page.getByTestId('event-detail');
    await detail.getByTestId('event-origin').waitFor();
    expect(await detail.getByTestId('event-origin').textContent()).toBe(
      'Claude Desktop log, line 39 (answer on line 47)',
    );
    expect(await detail.getByTestId('event-origin-notes').textContent()).toContain(
      'The host cancelled it ("MCP error -32001: Request timed out"): a timeout.',
    );
    await page.screenshot({ path: join(SHOTS, 'event-origin.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  for (const width of [1280, 390]) {
    it(`says in a host's reconnect loop whether each start connected, not "no answer", at ${width} px`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`${server.url}/servers/crashing-files?${WINDOW}`);
      await page.getByTestId('storm-table').getByRole('link', { name: 'Reconnect loop' }).click();
      await page.getByTestId('storm-title').waitFor();
      expect(await page.getByTestId('storm-title').textContent()).toBe(
        'claude-code kept reconnecting to a failing connection of crashing-files: 7 connection attempts (server start ×7), 3 avoidable',
      );
      const timeline = await page.getByTestId('timeline').textContent();
      expect(timeline).toContain('not connected');
      expect(timeline).toContain('server start');
      expect(timeline).not.toContain('no answer');
      expect(timeline).not.toContain('no body');
      await page.screenshot({ path: join(SHOTS, `storm-reconnect-${width}.png`), fullPage: true });
      await page.close();
    });
  }
});
