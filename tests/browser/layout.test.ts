/**
 * Layout a person can trust on the demo day: every table fits a 390 px phone, as cards or scrolling sideways with a
 * visible sign that it does (the Servers table cut 12,000 to "12,00" with none), and a link to a panel lands on the
 * panel, not 3,500 px above it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS } from '../../shared/classify/types.ts';
import {
  buildWeb,
  chromiumMissing,
  type DemoServer,
  launchBrowser,
  openPage,
  readCount,
  startDemo,
} from './support.ts';

/** The screens a person reaches from the navigation, and a server's page with each of its tables. */
const SCREENS = ['/', '/servers', '/servers/files', '/servers/summarizer', '/clients', '/actionability', '/alerts'];

interface WrapState {
  panel: string;
  overflow: number;
  hidden: string | null;
  hint: boolean;
}

let browser: Browser;
let demo: DemoServer;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  [, browser, demo] = await Promise.all([buildWeb(), launchBrowser(), startDemo()]);
});

afterAll(async () => {
  await browser?.close();
  await demo?.close();
});

async function phone(): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(browser);
  await opened.page.setViewportSize({ width: 390, height: 844 });
  return opened;
}

/** Once every panel has loaded: no skeleton left, nothing busy. */
async function settled(page: Page): Promise<void> {
  await expect.poll(() => page.locator('.skeleton, [aria-busy="true"]').count(), { timeout: 20_000 }).toBe(0);
}

/** Each table's scroller: how far it overflows, the edge it shades, and whether the line under it says so. */
function wraps(page: Page): Promise<WrapState[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.table-wrap')].map((wrap) => {
      const hint = wrap.nextElementSibling;
      return {
        panel: wrap.closest('section')?.querySelector('h2')?.textContent ?? '',
        overflow: wrap.scrollWidth - wrap.clientWidth,
        hidden: wrap.getAttribute('data-hidden'),
        hint: hint instanceof HTMLElement && hint.classList.contains('scroll-hint') && hint.offsetHeight > 0,
      };
    }),
  );
}

describe.skipIf(skipped)('the dashboard on a 390 px phone', () => {
  it('never scrolls the page sideways, and every table fits or shows that it scrolls', async () => {
    const { page, errors } = await phone();
    let tables = 0;
    for (const path of SCREENS) {
      await page.goto(`${demo.url}${path}`);
      await settled(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect({ path, overflow }).toEqual({ path, overflow: 0 });
      for (const wrap of await wraps(page)) {
        tables++;
        const shows = wrap.overflow <= 1 || (wrap.hint && wrap.hidden === 'right');
        expect({ path, ...wrap, shows }).toEqual({ path, ...wrap, shows: true });
      }
    }
    expect(tables).toBeGreaterThan(10);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lets the Servers table scroll to each number whole, with a sign that it scrolls until it has', async () => {
    const { page, errors } = await phone();
    await page.goto(`${demo.url}/servers?sort=refusal&dir=desc`);
    const row = page.getByTestId('server-row-files');
    await row.waitFor();
    const [wrap] = await wraps(page);
    // Eleven columns do not fit 390 px: the table scrolls, shaded at the right edge, and says so.
    expect(wrap).toMatchObject({ hidden: 'right', hint: true });
    expect(wrap?.overflow).toBeGreaterThan(100);

    // Every count of the row, read whole once scrolled into view: none cut at the edge.
    const cells = row.locator('td.num');
    const count = await cells.count();
    expect(count).toBeGreaterThan(5);
    const scroller = page.locator('.table-wrap').first();
    for (let i = 0; i < count; i++) {
      const cell = cells.nth(i);
      await cell.scrollIntoViewIfNeeded();
      const [box, frame] = await Promise.all([cell.boundingBox(), scroller.boundingBox()]);
      expect(
        box !== null && frame !== null && box.x >= frame.x - 1 && box.x + box.width <= frame.x + frame.width + 1,
      ).toBe(true);
    }
    // Its refusals: the 12,000 of the demo's prober storm, read whole.
    const servers = await demo.api<{ servers: { server: string; buckets: { refusal: number } }[] }>(
      `/api/v1/servers?from=${Date.now() - 86_400_000}&to=${Date.now() + 60_000}`,
    );
    const refused = servers.servers.find((s) => s.server === 'files')?.buckets.refusal ?? 0;
    expect(refused).toBeGreaterThanOrEqual(10_000);
    // The numbers go requests, then one column per bucket in BUCKETS' order.
    const refusalCell = row.locator('td.num').nth(1 + BUCKETS.indexOf('refusal'));
    expect(readCount(await refusalCell.textContent())).toBe(refused);

    await scroller.evaluate((element) => {
      element.scrollLeft = element.scrollWidth;
    });
    await expect.poll(async () => (await wraps(page))[0]?.hidden).toBe('left');
    expect((await wraps(page))[0]?.hint).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skipped)('a link to a panel', () => {
  it("lands on the server page's context gap from the overview's worst trim rate, once the page has loaded", async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${demo.url}/`);
    const link = page.getByTestId('trim-panel').getByRole('link').first();
    await link.waitFor();
    expect(await link.getAttribute('href')).toMatch(/#context-gap$/);
    await link.click();
    await page.getByTestId('context-gap').getByTestId('trim-rate').waitFor();
    await settled(page);
    const header = (await page.locator('.app-header').boundingBox())?.height ?? 0;
    // At the panel, under the sticky header: not at the top of a page thousands of pixels long.
    await expect
      .poll(async () => Math.round((await page.getByTestId('context-gap').boundingBox())?.y ?? -1), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(Math.floor(header));
    const top = (await page.getByTestId('context-gap').boundingBox())?.y ?? -1;
    expect(top).toBeLessThan(header + 40);
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);

    // A refresh of the data does not pull the page back to the panel once the person has scrolled away.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.getByRole('button', { name: 'Refresh' }).click();
    await settled(page);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lands on the panel when the address is opened directly, as a shared link is', async () => {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${demo.url}/servers/summarizer#context-gap`);
    await page.getByTestId('context-gap').getByTestId('trim-rate').waitFor();
    await settled(page);
    await expect
      .poll(async () => Math.abs((await page.getByTestId('context-gap').boundingBox())?.y ?? 9999), { timeout: 10_000 })
      .toBeLessThan(40);
    expect(errors).toEqual([]);
    await page.close();
  });
});
