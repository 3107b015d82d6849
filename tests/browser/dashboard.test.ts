import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS } from '../../shared/classify/types.ts';
import { exerciseServerList, manyServersNdjson } from './server-list.ts';
import {
  buildWeb,
  chromiumMissing,
  type DemoServer,
  launchBrowser,
  openPage,
  readCount,
  startDemo,
} from './support.ts';

interface Summary {
  overall: { total: number; avoidable: number; buckets: Record<string, number> };
}
interface ServerList {
  servers: { server: string; avoidable: number }[];
}
interface StormView {
  kind: string;
  attempts: number;
  avoidable: number;
}

interface EventPage {
  events: { http: { path: string | null } }[];
}

const PROBED = ['/mcp/mcp', '/mcp/sse', '/mcp/a2a/'];

let browser: Browser;
let demo: DemoServer;

const skipped = chromiumMissing();

beforeAll(async () => {
  if (skipped) return;
  const [, launched, started] = await Promise.all([buildWeb(), launchBrowser(), startDemo()]);
  browser = launched;
  demo = started;
});

afterAll(async () => {
  await browser?.close();
  await demo?.close();
});

describe.skipIf(skipped)('the dashboard in a browser', () => {
  it('shows on the overview the totals /api/v1/summary gives for the same window', async () => {
    const { page, errors } = await openPage(browser);
    const to = new Date(Date.now() + 60_000).toISOString();
    const from = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const window = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    await page.goto(`${demo.url}/?${window}`);
    await page.getByTestId('total-ok').filter({ hasNotText: '–' }).waitFor();
    await page.getByTestId('total-avoidable').filter({ hasNotText: '–' }).waitFor();

    const summary = await demo.api<Summary>(`/api/v1/summary?${window}`);
    expect(summary.overall.total).toBeGreaterThan(0);
    expect(readCount(await page.getByTestId('total-requests').textContent())).toBe(summary.overall.total);
    for (const bucket of BUCKETS) {
      expect(readCount(await page.getByTestId(`total-${bucket}`).textContent()), bucket).toBe(
        summary.overall.buckets[bucket],
      );
    }
    expect(summary.overall.avoidable).toBeGreaterThan(0);
    expect(readCount(await page.getByTestId('total-avoidable').textContent())).toBe(summary.overall.avoidable);
    await expect.poll(() => page.getByTestId('fixed-window').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("names the day on a week's time axes: the requests by bucket and a server's trim trend", async () => {
    // A bare "11:00" on a week's chart would stand for seven different hours.
    const dated = expect.stringMatching(/^\d{1,2} [A-Z][a-z]{2} \d\d:\d\d$/);
    const { page, errors } = await openPage(browser);
    const charts = [
      { path: '/?range=7d', chart: 'series' },
      { path: '/servers/summarizer?range=7d', chart: 'trim-trend' },
    ];
    for (const { path, chart } of charts) {
      await page.goto(`${demo.url}${path}`);
      const ticks = page.getByTestId(chart).locator('.recharts-cartesian-axis-tick-value');
      await ticks.first().waitFor();
      expect(await ticks.allTextContents(), chart).toContainEqual(dated);
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lists on the overview every identity over the re-presentation alarm, as the API does', async () => {
    const { page, errors } = await openPage(browser);
    const window = `from=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`;
    await page.goto(`${demo.url}/?${window}`);
    const rows = page.getByTestId('alarm-panel').locator('li code');
    await rows.first().waitFor();
    const { identities } = await demo.api<{ identities: { identity: string }[] }>(
      `/api/v1/identities?${window}&only=alarmed`,
    );
    expect(identities.length).toBeGreaterThan(0);
    const shown = await rows.evaluateAll((codes) => codes.map((code) => code.getAttribute('title')));
    expect(shown).toEqual(identities.map((row) => row.identity));
    expect(errors).toEqual([]);
    await page.close();
  });

  it("ranks a server's identities as the API does, each last answer within the panel's width", async () => {
    const { page, errors } = await openPage(browser);
    const window = `from=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`;
    await page.goto(`${demo.url}/servers/release-notes?${window}`);
    const table = page.getByTestId('identity-table');
    await table.locator('tbody code').first().waitFor();
    const detail = await demo.api<{ identities: { identity: string; last: { kind: string } }[] }>(
      `/api/v1/servers/release-notes?${window}`,
    );
    const shown = await table.locator('tbody code').evaluateAll((codes) => codes.map((c) => c.getAttribute('title')));
    expect(shown).toEqual(detail.identities.map((row) => row.identity));
    // The demo's sampling loop is answered policy_denied: the longest kind this table shows, under its badge.
    expect(detail.identities.map((row) => row.last.kind)).toContain('policy_denied');
    await table.getByText('policy_denied', { exact: true }).waitFor();
    const overflow = await table.locator('.table-wrap').evaluate((wrap) => wrap.scrollWidth - wrap.clientWidth);
    expect(overflow).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('takes a typed UTC window, refuses one that ends before it starts, and puts it in the URL', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${demo.url}/servers`);
    await page.getByRole('button', { name: 'Custom' }).click();
    const form = page.getByRole('form', { name: 'Custom time range' });
    await form.getByLabel('From (UTC)').fill('2026-11-30T10:00');
    await form.getByLabel('To (UTC)').fill('2026-11-30T09:00');
    await form.getByRole('button', { name: 'Apply' }).click();
    expect(await form.getByRole('alert').textContent()).toBe('The end must be after the start.');
    expect(new URL(page.url()).search).toBe('');

    await form.getByLabel('To (UTC)').fill('2026-11-30T12:30');
    await form.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/from=/);
    const params = new URL(page.url()).searchParams;
    expect([params.get('from'), params.get('to')]).toEqual(['2026-11-30T10:00:00.000Z', '2026-11-30T12:30:00.000Z']);
    expect(await page.getByTestId('fixed-window').textContent()).toBe('30 Nov 10:00 – 12:30 UTC');
    expect(await form.count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('drills from the overview to a server, to a probe storm, to its attempt timeline, to one event and its frames', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${demo.url}/?range=6h`);
    await page.getByTestId('top-servers').getByRole('link', { name: 'docs', exact: true }).first().click();
    await page.waitForURL(/\/servers\/docs\?range=6h$/);
    await expect.poll(() => page.locator('h1').textContent()).toBe('docs');

    await page.getByTestId('storm-table').getByRole('link', { name: 'Probe storm' }).first().click();
    await page.waitForURL(/\/storms\/[\w-]+\?range=6h$/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');
    const storm = await demo.api<StormView>(`/api/v1/storms/${encodeURIComponent(id)}`);
    expect(storm.kind).toBe('probe_storm');

    await expect.poll(() => page.locator('h1').textContent()).toBe('Probe storm: prober-9 → docs');
    expect(readCount(await page.getByTestId('storm-attempts').textContent())).toBe(storm.attempts);
    expect(readCount(await page.getByTestId('storm-avoidable').textContent())).toBe(storm.avoidable);
    // Identical neighbours are folded into one row ("22 × not sent: …"): the rows still add up to the storm.
    const gates = await page.getByTestId('timeline').locator('td.gate').allTextContents();
    const runs = gates.map((text) => {
      const folded = /^([\d,]+) × (.*)$/.exec(text);
      return { count: folded ? readCount(folded[1] ?? '') : 1, text: folded?.[2] ?? text };
    });
    expect(runs.reduce((sum, run) => sum + run.count, 0)).toBe(storm.attempts);
    const notSent = runs.filter((run) => run.text.startsWith('not sent'));
    expect(notSent.reduce((sum, run) => sum + run.count, 0)).toBe(storm.avoidable);

    // On to the events behind the storm, opened at its first attempt: the frames and the rule, in plain words.
    await page.getByTestId('timeline').locator('tbody tr').first().getByRole('link').click();
    await page.waitForURL(/\/events\?.*event=/);
    const detail = page.getByTestId('event-detail');
    await detail.getByText('Why this bucket').waitFor();
    expect(await detail.textContent()).toContain('prober-9');
    expect(await detail.textContent()).toMatch(/Rule \S+, read from/);
    await detail.getByText('Request frame').waitFor();
    expect(await page.getByRole('button', { pressed: true }).count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('gives back the same events view after a reload of its URL', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${demo.url}/events`);
    await page.getByLabel('Server').selectOption('docs');
    await page.getByLabel('Bucket').selectOption('refusal');
    await page.waitForURL(/server=docs&bucket=refusal/);
    const rows = page.getByTestId('event-table').locator('.event-row');
    await expect.poll(async () => (await rows.allTextContents()).every((t) => t.includes('→ docs'))).toBe(true);
    await rows.nth(2).click();
    const detail = page.getByTestId('event-detail');
    await detail.waitFor();
    const before = { url: page.url(), rows: await rows.allTextContents(), detail: await detail.textContent() };
    expect(before.url).toMatch(/event=.+&at=\d+/);

    await page.reload();
    await detail.waitFor();
    await expect.poll(() => rows.allTextContents()).toEqual(before.rows);
    expect(page.url()).toBe(before.url);
    expect(await detail.textContent()).toBe(before.detail);
    expect(await page.getByLabel('Server').inputValue()).toBe('docs');
    expect(await page.getByLabel('Bucket').inputValue()).toBe('refusal');
    expect(await rows.nth(2).getAttribute('aria-pressed')).toBe('true');
    expect(errors).toEqual([]);
    await page.close();
  });
  it('uploads a dropped NDJSON file and reports what was stored and refused, by file line', async () => {
    const server = `ingest-test-${Date.now().toString(36)}`;
    const event = (n: number) =>
      JSON.stringify({
        id: `${server}-${n}`,
        ts: new Date(Date.now() - n * 1000).toISOString(),
        source: 'client',
        client: 'browser-test',
        server,
        http: { method: 'POST', path: '/mcp', status: 200 },
      });
    const lines = [event(1), event(2), '{"ts": "not closed', event(4)];
    const { page, errors } = await openPage(browser);
    await page.goto(`${demo.url}/ingest`);
    await page.getByTestId('ship-logs').getByText(`--url ${demo.url}`).waitFor();
    await page.locator('input[type="file"]').setInputFiles({
      name: 'client.ndjson',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(`${lines.join('\n')}\n`),
    });
    await page.locator('.upload-done').waitFor();
    expect(await page.getByTestId('ingest-accepted').textContent()).toBe('3');
    expect(await page.getByTestId('ingest-rejected').textContent()).toBe('1');
    const reject = page.getByTestId('reject-table').locator('tbody tr');
    expect(await reject.count()).toBe(1);
    expect(await reject.locator('td[data-label="Line"]').textContent()).toBe('3');
    expect(await reject.locator('td[data-label="Code"]').textContent()).toBe('invalid_json');

    const stored = await demo.api<EventPage>(`/api/v1/events?server=${encodeURIComponent(server)}`);
    expect(stored.events).toHaveLength(3);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skipped)("editing a server's contract in the browser", () => {
  // These tests change stored classifications: they get a server of their own.
  let own: DemoServer;
  beforeAll(async () => {
    own = await startDemo();
  });
  afterAll(async () => {
    await own?.close();
  });

  it('saves a discovery document, says how many events were reclassified, and shows the new buckets', async () => {
    // Declaring the prober's paths turns its "undeclared path" refusals into 404s on declared paths.
    const before = await own.api<EventPage>('/api/v1/events?server=docs&kind=not_declared&limit=1000');
    const expected = before.events.filter((e) => PROBED.includes(e.http.path ?? '')).length;
    expect(expected).toBeGreaterThan(0);

    const { page, errors } = await openPage(browser);
    await page.goto(`${own.url}/servers/docs?range=7d`);
    const refusals = page.getByTestId('total-refusal');
    await refusals.filter({ hasNotText: '–' }).waitFor();
    const refusalsBefore = readCount(await refusals.textContent());

    await page.getByTestId('discovery').waitFor();
    await page.getByTestId('discovery-panel').getByRole('button', { name: 'Edit' }).click();
    const endpoints = ['/mcp', ...PROBED].map((path) => ({ method: 'POST', path }));
    await page.getByRole('textbox').fill(JSON.stringify({ endpoints, methods: ['tools/call', 'initialize'] }));
    await page.getByRole('button', { name: 'Save' }).click();

    const saved = page.getByTestId('reclassified');
    await saved.waitFor();
    expect(await saved.textContent()).toBe(`Saved. ${expected.toLocaleString('en-US')} stored events reclassified.`);
    await expect.poll(async () => readCount(await refusals.textContent())).toBe(refusalsBefore - expected);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('refuses a discovery document that is not JSON without sending it', async () => {
    const { page } = await openPage(browser);
    await page.goto(`${own.url}/servers/billing`);
    await page.getByTestId('discovery').waitFor();
    await page.getByTestId('discovery-panel').getByRole('button', { name: 'Edit' }).click();
    let puts = 0;
    page.on('request', (request) => {
      if (request.method() === 'PUT') puts += 1;
    });
    await page.getByRole('textbox').fill('{"endpoints": [');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/^Not valid JSON/).waitFor();
    expect(puts).toBe(0);
    await page.close();
  });

  it('adds a code override, shows what the API refused and where, then moves the events to its bucket', async () => {
    // search answers 429 when it rate-limits; an operator who knows its quota never resets calls that a refusal.
    const stored = await own.api<EventPage>('/api/v1/events?server=search&bucket=throttled&limit=1000');
    expect(stored.events.length).toBeGreaterThan(0);

    const { page, errors } = await openPage(browser);
    await page.goto(`${own.url}/servers/search?range=7d`);
    const [throttled, refusals] = [page.getByTestId('total-throttled'), page.getByTestId('total-refusal')];
    await throttled.filter({ hasNotText: '–' }).waitFor();
    const before = {
      throttled: readCount(await throttled.textContent()),
      refusal: readCount(await refusals.textContent()),
    };
    expect(before.throttled).toBeGreaterThan(0);

    const panel = page.getByTestId('overrides-panel');
    await panel.getByRole('button', { name: 'Edit' }).click();
    await panel.getByRole('button', { name: 'Add override' }).click();
    await panel.getByLabel('Row 1: code').fill('429');
    await panel.getByLabel('Row 1: bucket').selectOption('refusal');
    await panel.getByLabel('Row 1: kind').fill('Quota Gone');
    await panel.getByRole('button', { name: 'Save' }).click();
    await panel
      .getByRole('alert')
      .getByText(/snake_case/)
      .waitFor();
    expect(await panel.getByTestId('override-fault').textContent()).toContain('overrides.0.kind: row 1, kind');
    expect(await panel.getByLabel('Row 1: kind').getAttribute('aria-invalid')).toBe('true');

    await panel.getByLabel('Row 1: kind').fill('quota_exhausted');
    await panel.getByRole('button', { name: 'Save' }).click();
    const saved = panel.getByTestId('reclassified');
    await saved.waitFor();
    expect(await saved.textContent()).toBe(
      `Saved. ${stored.events.length.toLocaleString('en-US')} stored events reclassified.`,
    );
    await expect.poll(async () => readCount(await throttled.textContent())).toBe(0);
    expect(readCount(await refusals.textContent())).toBe(before.refusal + before.throttled);
    await page.getByTestId('kind-table').getByText('quota_exhausted').waitFor();
    await panel.getByRole('button', { name: 'Close' }).click();
    await panel.getByText('HTTP status 429').waitFor();
    // The refused save is the one error the page may log: the browser reports every 4xx answer.
    expect(errors.filter((error) => !error.includes('status of 400'))).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skipped)('a server started with a token', () => {
  const TOKEN = 'browser-test-token-7f3a';
  let locked: DemoServer;
  beforeAll(async () => {
    locked = await startDemo({ token: TOKEN });
  });
  afterAll(async () => {
    await locked?.close();
  });

  it('asks for the token on the first 401, refuses a wrong one, then shows the overview and keeps it', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${locked.url}/`);
    const prompt = page.getByRole('dialog', { name: 'This server needs a token' });
    await prompt.waitFor();
    await prompt.getByLabel('Token').fill('not-the-token');
    await prompt.getByRole('button', { name: 'Sign in' }).click();
    await prompt.getByRole('alert').getByText('The server refused that token.').waitFor();

    await prompt.getByLabel('Token').fill(TOKEN);
    await prompt.getByRole('button', { name: 'Sign in' }).click();
    await prompt.waitFor({ state: 'hidden' });
    const total = page.getByTestId('total-requests');
    await total.filter({ hasNotText: '–' }).waitFor();
    expect(readCount(await total.textContent())).toBeGreaterThan(0);

    // The tab keeps the token: a reload asks for nothing.
    await page.reload();
    await total.filter({ hasNotText: '–' }).waitFor();
    expect(await prompt.isVisible()).toBe(false);
    // Before the token, every call was refused: those 401s are the only errors the page may log.
    expect(errors.filter((error) => !error.includes('status of 401'))).toEqual([]);
    await page.close();
  });

  it('downloads the Clients table as CSV with the token a link could not send: every client the API lists', async () => {
    const { page, errors } = await openPage(browser);
    await page.addInitScript((token) => window.sessionStorage.setItem('refusal-lens.token', token), TOKEN);
    await page.goto(`${locked.url}/clients`);
    const table = page.getByTestId('client-table');
    await table.locator('table').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      table.getByRole('button', { name: 'CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('lens-clients.csv');
    const lines = readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\r\n');
    const { clients } = await locked.api<{ clients: { client: string }[] }>('/api/v1/clients');
    expect(lines[0]?.startsWith('client,requests,avoidable,')).toBe(true);
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(clients.map((row) => row.client));
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skipped)('the Servers screen with 500 servers', () => {
  let fleet: DemoServer;
  /** The demo's own servers, which the 500 join. */
  let demoServers: string[];
  beforeAll(async () => {
    fleet = await startDemo();
    demoServers = (await fleet.api<ServerList>('/api/v1/servers')).servers.map((s) => s.server);
    expect(await fleet.ingest(manyServersNdjson(500, Date.now()))).toBeGreaterThan(1000);
  });
  afterAll(async () => {
    await fleet?.close();
  });

  it('draws the first 100, sorts all of them by name both ways, finds ten by search, and shows the rest', async () => {
    const { servers } = await fleet.api<ServerList>('/api/v1/servers');
    const total = demoServers.length + 500;
    expect(servers).toHaveLength(total);
    // By name, the demo's servers come first and last: every generated one is server-NNN.
    const byName = demoServers.toSorted((a, b) => a.localeCompare(b));
    const { page, errors } = await openPage(browser);
    const run = await exerciseServerList(page, `${fleet.url}/servers`, 'server-04');
    expect(run).toMatchObject({
      rows: 100,
      firstAscending: byName[0],
      firstDescending: byName.at(-1),
      searchRows: 10,
    });
    const rows = page.getByTestId('server-list').locator('tbody tr');
    expect(await rows.first().locator('th').textContent()).toBe('server-049');

    await page.getByRole('searchbox', { name: 'Search servers' }).fill('');
    expect(await page.getByTestId('servers-shown').textContent()).toBe(
      `The first 100 of ${total} servers in this order.`,
    );
    await page.getByRole('button', { name: 'Show 100 more' }).click();
    expect(await rows.count()).toBe(200);
    await page.getByRole('button', { name: 'Show all' }).click();
    expect(await rows.count()).toBe(total);
    expect(await page.getByTestId('servers-shown').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skipped)('alert rules in a browser', () => {
  it('creates a rule on the demo data, sees its preview, and sees it fire', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${demo.url}/alerts/new`);
    await page.getByLabel('Name').fill('Any refusal per server');
    await page.getByLabel('Metric').selectOption('refusal_count');
    await page.getByLabel('One alert per').selectOption('server');
    await page.getByLabel('Warning').fill('1');
    await page.getByLabel('Evaluate every').fill('10');
    const summary = page.getByTestId('preview-summary');
    await summary.filter({ hasText: /Would have notified \d+ times/ }).waitFor();
    expect(await page.getByTestId('preview-chart').locator('.recharts-line').count()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.waitForURL(`${demo.url}/alerts`);
    const row = page.getByTestId('rule-row').filter({ hasText: 'Any refusal per server' });
    // The engine evaluates a new rule within one tick; the screen polls.
    await row.getByText(/^firing \d+$/).waitFor({ timeout: 20_000 });
    // The firing list is its own query, refreshed on its own schedule: wait for it too.
    const firing = page.getByTestId('firing-alerts').getByTestId('alert-row').filter({ hasText: 'Any refusal' });
    await firing.first().waitFor({ timeout: 20_000 });
    expect(await firing.count()).toBeGreaterThan(0);
    expect(await firing.first().textContent()).toMatch(/warning.*server files/);
    await page.getByTestId('alert-history').getByText('Any refusal per server').first().waitFor();
    // The server's own page shows the alerts about it, and only those.
    await page.goto(`${demo.url}/servers/files`);
    const onServer = page.getByTestId('firing-alerts').getByTestId('alert-row');
    await onServer.filter({ hasText: 'Any refusal per server' }).waitFor();
    expect(await onServer.filter({ hasText: 'server docs' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says nothing of the analysis lag while it is current, and how far behind it is when /health reports it', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${demo.url}/`);
    await page.getByTestId('total-requests').filter({ hasNotText: '–' }).waitFor();
    expect((await demo.api<{ analysis: { lagMs: number } }>('/api/v1/health')).analysis.lagMs).toBe(0);
    expect(await page.getByTestId('analysis-lag').count()).toBe(0);

    // A lag of minutes needs a store that cannot keep up; the real answer is taken and only its lag is changed.
    await page.route('**/api/v1/health', async (route) => {
      const real = await (await route.fetch()).json();
      const analysis = { ...real.analysis, pendingEvents: 12_400, pendingPartitions: 3, lagMs: 450_000 };
      await route.fulfill({ json: { ...real, analysis } });
    });
    await page.reload();
    const banner = page.getByTestId('analysis-lag');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(
      /^Analysis 7 min 30 s behind\. 12,400 stored events are not yet counted; avoidable .* 3 client–server pairs are still being replayed/,
    );
    expect(await banner.textContent()).toContain('Ingest is refusing new batches');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says when the range reaches past retention, and not when it does not', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${demo.url}/?range=24h`);
    await page.getByTestId('total-requests').filter({ hasNotText: '–' }).waitFor();
    expect(await page.getByTestId('retention-note').count()).toBe(0);

    // Retention's horizons are days; the real answer is taken and only where the kept events begin is changed.
    const eventsFrom = Date.now() - 2 * 3_600_000;
    await page.route('**/api/v1/health', async (route) => {
      const real = await (await route.fetch()).json();
      await route.fulfill({ json: { ...real, kept: { eventsFrom, countsFrom: eventsFrom - 86_400_000 } } });
    });
    await page.reload();
    const note = page.getByTestId('retention-note');
    await note.waitFor();
    expect(await note.textContent()).toMatch(/^Part of this range is past retention\. Events are kept from /);
    expect(await note.textContent()).not.toContain('Nothing is kept before');
    await page.goto(`${demo.url}/?range=1h`);
    await page.getByTestId('total-requests').filter({ hasNotText: '–' }).waitFor();
    expect(await page.getByTestId('retention-note').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
