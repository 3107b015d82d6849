import type { Page } from 'playwright-core';

/**
 * A federation of `count` servers (server-000, server-001, …) for the Servers screen at scale: one client, a few
 * requests per server in the last hour, the mix of OK, refusals (405) and throttles (429) varying by server.
 */
export function manyServersNdjson(count: number, now: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const server = `server-${String(i).padStart(3, '0')}`;
    const statuses = [
      ...Array<number>((i % 4) + 1).fill(200),
      ...Array<number>(i % 3).fill(405),
      ...Array<number>(i % 2).fill(429),
    ];
    statuses.forEach((status, n) => {
      lines.push(
        JSON.stringify({
          id: `${server}-${n}`,
          ts: now - 60_000 - (i * 10 + n) * 1000,
          source: 'client',
          client: 'fleet-agent',
          server,
          http: { method: 'POST', path: '/mcp', status },
        }),
      );
    });
  }
  return `${lines.join('\n')}\n`;
}

export interface ServerListRun {
  /** Rows shown once the list has loaded, and ms from navigation until then. */
  rows: number;
  loadedMs: number;
  /** First server after sorting by name ascending, then descending; ms from the click to the next frame. */
  firstAscending: string;
  firstDescending: string;
  sortMs: number;
  /** Rows left after typing `search`; ms per keystroke, typed one key at a time. */
  search: string;
  searchRows: number;
  msPerKey: number;
}

/** Opens the Servers screen, sorts it by name both ways and searches it: what a person does with a long list. */
export async function exerciseServerList(page: Page, url: string, search: string): Promise<ServerListRun> {
  const rows = page.getByTestId('server-list').locator('tbody tr');
  await page.goto(url);
  await rows.first().waitFor();
  const loadedMs = await page.evaluate(() => performance.now());
  const count = await rows.count();
  const firstRow = async () => (await rows.first().locator('th').textContent()) ?? '';

  const sortMs = await clickToFrame(page, 'Server');
  const firstAscending = await firstRow();
  await clickToFrame(page, 'Server');
  const firstDescending = await firstRow();

  const box = page.getByRole('searchbox', { name: 'Search servers' });
  const started = Date.now();
  await box.pressSequentially(search);
  await page.waitForFunction(([expected]) => new URL(window.location.href).searchParams.get('q') === expected, [
    search,
  ] as const);
  const msPerKey = (Date.now() - started) / search.length;
  return {
    rows: count,
    loadedMs,
    firstAscending,
    firstDescending,
    sortMs,
    search,
    searchRows: await rows.count(),
    msPerKey,
  };
}

/** Clicks a sort header in the page itself and waits for the frame after React's update: no round trip counted. */
function clickToFrame(page: Page, column: string): Promise<number> {
  return page.evaluate(async (label) => {
    const buttons = [...document.querySelectorAll<HTMLButtonElement>('button.sort')];
    const button = buttons.find((candidate) => candidate.textContent?.startsWith(label));
    if (button === undefined) throw new Error(`no sort header ${label}`);
    const start = performance.now();
    button.click();
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    return performance.now() - start;
  }, column);
}
