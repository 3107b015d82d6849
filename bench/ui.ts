/**
 * The dashboard's weight and speed on the demo data: gzip bytes of the JavaScript the first screen loads (the
 * entry chunk and what index.html preloads), and the time from navigation start until the overview shows its
 * totals, in Debian's Chromium (median of 5 cold page loads). Then, with 500 more servers, the Servers screen:
 * time to its list, one sort click to the next frame, and a search keystroke (median of 5).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { exerciseServerList, manyServersNdjson, type ServerListRun } from '../tests/browser/server-list.ts';
import { buildWeb, CHROMIUM, type DemoServer, launchBrowser, startDemo } from '../tests/browser/support.ts';

const DIST = fileURLToPath(new URL('../dist/web', import.meta.url));

export async function benchUi(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`ui: skipped (no ${CHROMIUM})`);
    return;
  }
  await buildWeb();
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const firstScreen = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
  const gz = (file: string) => gzipSync(readFileSync(join(DIST, file))).length;
  const first = firstScreen.reduce((n, file) => n + gz(file), 0);
  const all = readdirSync(join(DIST, 'assets'))
    .filter((f) => f.endsWith('.js'))
    .reduce((n, f) => n + gz(join('assets', f)), 0);
  const demo = await startDemo();
  const browser = await launchBrowser();
  try {
    const times: number[] = [];
    for (let run = 0; run < 5; run++) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${demo.url}/?range=24h`);
      await page.getByTestId('total-refusal').filter({ hasNotText: '–' }).waitFor();
      times.push(await page.evaluate(() => performance.now()));
      await context.close();
    }
    times.sort((a, b) => a - b);
    console.log(
      `ui: first screen ${(first / 1024).toFixed(1)} kB gzip of JS (all chunks ${(all / 1024).toFixed(1)} kB); ` +
        `overview usable after ${times[2]?.toFixed(0)} ms median (runs ${times.map((t) => t.toFixed(0)).join(', ')})`,
    );
    await benchServerList(browser, demo);
  } finally {
    await browser.close();
    await demo.close();
  }
}

/** The Servers screen once 500 servers more than the demo's are known. */
async function benchServerList(browser: Browser, demo: DemoServer): Promise<void> {
  await demo.ingest(manyServersNdjson(500, Date.now()));
  const known = (await demo.api<{ servers: unknown[] }>('/api/v1/servers')).servers.length;
  const runs: ServerListRun[] = [];
  for (let run = 0; run < 5; run++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    runs.push(await exerciseServerList(await context.newPage(), `${demo.url}/servers`, 'server-04'));
    await context.close();
  }
  const median = (pick: (run: ServerListRun) => number) => runs.map(pick).sort((a, b) => a - b)[2] ?? Number.NaN;
  console.log(
    `ui: Servers screen, ${known} servers (${runs[0]?.rows ?? 0} drawn): list after ${median((r) => r.loadedMs).toFixed(0)} ms, ` +
      `a sort ${median((r) => r.sortMs).toFixed(0)} ms to the next frame, search ${median((r) => r.msPerKey).toFixed(0)} ms a ` +
      'keystroke (medians of 5 cold loads)',
  );
}
