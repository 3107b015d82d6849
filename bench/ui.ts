/**
 * The dashboard's weight and speed on the demo data: gzip bytes of the JavaScript the first screen loads (the
 * entry chunk and what index.html preloads), and the time from navigation start until the overview shows its
 * totals, in Debian's Chromium (median of 5 cold page loads).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildWeb, CHROMIUM, launchBrowser, startDemo } from '../tests/browser/support.ts';

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
  } finally {
    await browser.close();
    await demo.close();
  }
}
