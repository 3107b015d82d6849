/**
 * What an alert says on the screen, against a real engine evaluating real traffic: the threshold it was held to,
 * named by severity (a rule warning at 20 % and critical at 50 % showed "≥ 50 %" unexplained), why a firing alert
 * whose value fell back still fires and when it clears, and the rule's own interval beside the preview's step.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { buildWeb, chromiumMissing, launchBrowser, openPage } from './support.ts';

const SERVER = 'share-desk';
/** Refusal share of one server: warning at 20 %, critical at 50 %, evaluated every 10 s, 10 min clear to resolve. */
const RULE = {
  name: 'Refusal share of share-desk',
  metric: 'refusal_rate',
  scope: { server: SERVER },
  groupBy: 'server',
  warning: 0.2,
  critical: 0.5,
  windowSeconds: 900,
  intervalSeconds: 10,
  keepFiringForSeconds: 600,
};

let browser: Browser;
let server: RunningServer;
let dataDir: string;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  dataDir = mkdtempSync(join(tmpdir(), 'lens-alert-wording-'));
  [, browser, server] = await Promise.all([
    buildWeb(),
    launchBrowser(),
    startServer({ host: '127.0.0.1', port: 0, dataDir }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function post(path: string, type: string, body: string): Promise<{ accepted?: number; rule?: { id: string } }> {
  const response = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': type }, body });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

let sent = 0;
/** `count` requests of the server's, just now: refused (403) or answered. */
async function traffic(count: number, status: 403 | 200): Promise<void> {
  const lines = Array.from({ length: count }, () => {
    sent++;
    return JSON.stringify({
      id: `share-${sent}`,
      ts: new Date(Date.now() - 1000).toISOString(),
      source: 'client',
      client: 'ledger-bot',
      server: SERVER,
      http: { method: 'POST', path: '/mcp', status },
      request: { jsonrpc: '2.0', id: sent, method: 'tools/call', params: { name: 'post', arguments: { n: sent } } },
      response: status === 200 ? { jsonrpc: '2.0', id: sent, result: { content: [] } } : null,
    });
  });
  const report = await post('/api/v1/ingest', 'application/x-ndjson', lines.join('\n'));
  expect(report.accepted).toBe(count);
}

/** The row's clearing line once it reads `pattern`: the engine evaluates every 10 s, the screen polls. */
async function clearingOf(row: Locator, pattern: RegExp): Promise<string> {
  const clearing = row.getByTestId('alert-clearing');
  await expect
    .poll(async () => ((await clearing.count()) === 0 ? '' : await clearing.textContent()), {
      timeout: 40_000,
      interval: 500,
    })
    .toMatch(pattern);
  return (await clearing.textContent()) ?? '';
}

describe.skipIf(skipped)('an alert on the screen', () => {
  it('names its severity threshold, then says why it fires on below it and when it clears', async () => {
    const created = await post('/api/v1/alerts/rules', 'application/json', JSON.stringify(RULE));
    const held = await post(
      '/api/v1/alerts/rules',
      'application/json',
      JSON.stringify({ ...RULE, name: 'Held refusal share', pendingSeconds: 86_400 }),
    );
    expect([created.rule?.id, held.rule?.id]).toEqual([expect.any(String), expect.any(String)]);
    await traffic(5, 403);

    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}/alerts`);
    const rows = page.getByTestId('firing-alerts').getByTestId('alert-row');
    const firing = rows.filter({ hasText: RULE.name });
    await firing.waitFor({ timeout: 40_000 });
    // 5 of 5 refused: over both thresholds, held to the critical one and saying so.
    expect(await firing.locator('.pill').textContent()).toBe('critical');
    expect(await firing.getByTestId('alert-threshold').textContent()).toBe('critical at ≥ 50.0%');
    expect(await firing.getByTestId('alert-clearing').count()).toBe(0);
    const pending = rows.filter({ hasText: 'Held refusal share' });
    await pending.waitFor({ timeout: 40_000 });
    expect(await pending.locator('.pill').textContent()).toBe('pending critical');

    // 5 of 25: below critical, at the warning threshold. It stays critical, and says so.
    await traffic(20, 200);
    expect(await clearingOf(firing, /^No longer/)).toBe(
      'No longer ≥ 50.0% but still ≥ 20.0% (warning): stays critical until it resolves, 10 min after it clears.',
    );
    expect(await firing.locator('.pill').textContent()).toBe('critical');

    // 5 of 55: clear. It fires on for its keep-firing time, and says until when.
    await traffic(30, 200);
    const clear = await clearingOf(firing, /since/);
    const [, since, until] = /^No longer ≥ 50\.0% since (\d\d:\d\d:\d\d) UTC: resolves at (\d\d:\d\d:\d\d) UTC/.exec(
      clear,
    ) ?? ['', '', ''];
    const seconds = (hms: string) => hms.split(':').reduce((total, part) => total * 60 + Number(part), 0);
    expect((seconds(until) - seconds(since) + 86_400) % 86_400).toBe(600);
    expect(clear).toMatch(/if it stays so \(10 min clear\)\.$/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("states the rule's own interval beside the preview's step", async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}/alerts/new`);
    await page.getByLabel('Name').fill('Any refusal');
    await page.getByLabel('Metric').selectOption('refusal_count');
    await page.getByLabel('Critical').fill('1');
    await page.getByLabel('Evaluate every').fill('60');
    const cadence = page.getByTestId('preview-cadence');
    // The screen's range is a day: a preview replays 96 evaluations of it at most, one every 15 minutes.
    await expect
      .poll(() => cadence.textContent(), { timeout: 20_000 })
      .toBe('1 group; the rule runs every 1 min; this preview replays one run every 15 min');
    await page.getByLabel('Evaluate every').fill('1800');
    await expect
      .poll(() => cadence.textContent(), { timeout: 20_000 })
      .toBe('1 group; the rule runs every 30 min; each run is shown');
    expect(errors).toEqual([]);
    await page.close();
  });
});
