import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { chromiumMissing, launchBrowser, openPage } from './support.ts';

const TOKEN = 'reference-test-token-5c1e';

let browser: Browser;
let server: RunningServer;
let dir: string;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  dir = mkdtempSync(join(tmpdir(), 'lens-reference-'));
  [browser, server] = await Promise.all([
    launchBrowser(),
    startServer({ host: '127.0.0.1', port: 0, dataDir: dir, token: TOKEN }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Sends an operation of the page as its "Execute" button does, and waits for the page to show `status`. */
async function execute(operation: Locator, status: string): Promise<void> {
  await operation.getByRole('button', { name: 'Execute' }).click();
  await operation.locator('.live-responses-table tr.response .response-col_status').getByText(status).waitFor();
}

describe.skipIf(skipped)('the API reference page in a browser', () => {
  it('renders every operation of the document, under the CSP, and calls the API once given the token', async () => {
    const documented = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    const operations = Object.values(documented.paths as Record<string, object>).flatMap(Object.keys);
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}/api/docs`);
    await page.locator('h1.title').getByText('Refusal Lens API').waitFor();
    expect(await page.locator('.opblock').count()).toBe(operations.length);

    const summary = page.locator('.opblock').filter({ has: page.locator('[data-path="/api/v1/summary"]') });
    await summary.locator('.opblock-summary').click();
    await summary.getByRole('button', { name: 'Try it out' }).click();
    await execute(summary, '401');
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.getByLabel('auth-bearer-value').fill(TOKEN);
    await dialog.getByRole('button', { name: 'Apply credentials' }).click();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await execute(summary, '200');
    // Chromium logs each CSP violation as a console error. The call before the token was refused: that 401 is the one
    // error the page may log.
    expect(errors.filter((error) => !error.includes('status of 401'))).toEqual([]);
    await page.close();
  });
});
