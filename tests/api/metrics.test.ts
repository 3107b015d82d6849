import { statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { DEFAULT_CONFIG } from '../../api/env.ts';
import { deliverDue } from '../../api/services/alerts/deliver.ts';
import { evaluateDue } from '../../api/services/alerts/engine.ts';
import { Folder } from '../../api/services/fold.ts';
import { ProcessMetrics } from '../../api/services/process-metrics.ts';
import { openStore } from '../../db/store.ts';
import { createTestApp, get, postJson, postNdjson, putJson, TEST_NOW, type TestApp } from '../support/app.ts';
import { clientEvent, proxyEvent, rpcError } from '../support/events.ts';
import { replayMigration } from '../support/migrations.ts';
import { type ParsedSample, parseExposition, prometheusToolsMissing, promtoolCheck } from '../support/prometheus.ts';
import { openDemoSqlite, openTempSqlite, STORE_KINDS, type TestStore } from '../support/stores.ts';

const OPENMETRICS = 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
const MINUTE = 60_000;
const toolsMissing = prometheusToolsMissing();

async function scrape(app: TestApp, headers: Record<string, string> = {}) {
  const res = await get(app, '/metrics', headers);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return { res, text };
}

/** The samples of one scrape, as Prometheus's Python client reads them back. */
async function samples(app: TestApp): Promise<ParsedSample[]> {
  return parseExposition((await scrape(app)).text, 'text');
}

/** A sample's value per label set (its label values in order, as JSON), of the samples named `name`. */
function valuesOf(all: readonly ParsedSample[], name: string, labels: readonly string[]): Map<string, number> {
  const named = all.filter((sample) => sample.name === name);
  return new Map(named.map((s) => [JSON.stringify(labels.map((label) => s.labels[label] ?? '')), s.value]));
}

/** Counted less withdrawn per label set, leaving out sets that net to nothing: the API's count of all time. */
function netOf(all: readonly ParsedSample[], family: string, labels: readonly string[]): Map<string, number> {
  const counted = valuesOf(all, `${family}_counted_total`, labels);
  const withdrawn = valuesOf(all, `${family}_withdrawn_total`, labels);
  const net = new Map<string, number>();
  for (const [key, value] of counted)
    if (value - (withdrawn.get(key) ?? 0) !== 0) net.set(key, value - (withdrawn.get(key) ?? 0));
  return net;
}

interface Counts {
  avoidable: number;
  kinds: Record<string, Record<string, number>>;
}

/** GET /api/v1/summary over all time, as label sets: requests per (server, bucket, kind), avoidable per server and client. */
async function apiCounts(app: TestApp) {
  const summary = (await (await get(app, '/api/v1/summary')).json()) as {
    servers: Record<string, Counts>;
    clients: Record<string, Counts>;
  };
  const requests = new Map<string, number>();
  for (const [server, counts] of Object.entries(summary.servers)) {
    for (const [bucket, kinds] of Object.entries(counts.kinds)) {
      for (const [kind, n] of Object.entries(kinds))
        if (n !== 0) requests.set(JSON.stringify([server, bucket, kind]), n);
    }
  }
  const avoidable = (of: Record<string, Counts>) =>
    new Map(Object.entries(of).flatMap(([name, counts]) => (counts.avoidable === 0 ? [] : [[name, counts.avoidable]])));
  return { requests, byServer: avoidable(summary.servers), byClient: avoidable(summary.clients) };
}

/** Sums a map of label sets per one label's position, leaving out `skip` and zero sums. */
function sumBy(values: Map<string, number>, position: number, skip?: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const [key, value] of values) {
    const label = (JSON.parse(key) as string[])[position] as string;
    if (label !== skip) sums.set(label, (sums.get(label) ?? 0) + value);
  }
  return new Map([...sums].filter(([, sum]) => sum !== 0));
}

describe.skipIf(toolsMissing)('GET /metrics on the demo federation', () => {
  let db: TestStore;
  let app: TestApp;
  beforeAll(async () => {
    db = await openDemoSqlite(TEST_NOW);
    app = createTestApp(db.store);
  });
  afterAll(async () => db.dispose());

  it("is the text format by default, and passes Prometheus's promtool check metrics", async () => {
    const { res, text } = await scrape(app);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers.get('vary')).toBe('Accept');
    expect(text).not.toContain('# EOF');
    expect(await promtoolCheck(text)).toEqual({ code: 0, output: '' });
  });

  it('is OpenMetrics when Accept asks for it (as Prometheus does), read by the strict parser as the same samples', async () => {
    const { res, text } = await scrape(app, { accept: OPENMETRICS });
    expect(res.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(text.endsWith('\n# EOF\n')).toBe(true);
    // A counter's family is named without _total, its samples with it.
    expect(text).toContain('# TYPE lens_requests_counted counter\nlens_requests_counted_total{');
    const open = await parseExposition(text, 'openmetrics');
    const plain = await parseExposition((await scrape(app, { accept: 'text/plain;version=0.0.4' })).text, 'text');
    const named = (all: ParsedSample[]) => all.map(({ name, labels, value }) => ({ name, labels, value }));
    // OpenMetrics adds nothing but its own _created samples, which we do not write.
    expect(named(open)).toEqual(named(plain));
    expect(open.length).toBeGreaterThan(100);
  });

  it('counts requests per server, bucket and kind, and avoidable ones per server and client, as the API does', async () => {
    const all = await samples(app);
    const api = await apiCounts(app);
    expect(api.requests.size).toBeGreaterThan(10);
    expect(netOf(all, 'lens_requests', ['server', 'bucket', 'kind'])).toEqual(api.requests);
    const avoidable = netOf(all, 'lens_avoidable_requests', ['server', 'client']);
    expect(sumBy(avoidable, 0)).toEqual(api.byServer);
    // '' is a request the server sent: its own conduct, no client's.
    expect(sumBy(avoidable, 1, '')).toEqual(api.byClient);
    expect(avoidable.get(JSON.stringify(['release-notes', '']))).toBeGreaterThan(40);
  });

  it('gauges active storms, identities over the alarm and trim rates as the API reads them now', async () => {
    const all = await samples(app);
    const { servers } = await (await get(app, '/api/v1/servers')).json();
    const storms = valuesOf(all, 'lens_storms_active', ['server']);
    const alarmed = valuesOf(all, 'lens_identities_over_alarm', ['server']);
    const trims = valuesOf(all, 'lens_context_trim_ratio', ['server']);
    const now = `from=${TEST_NOW - 10 * MINUTE}&to=${TEST_NOW}`;
    for (const { server } of servers as { server: string }[]) {
      const key = JSON.stringify([server]);
      const q = `server=${encodeURIComponent(server)}`;
      const { active } = await (await get(app, `/api/v1/storms?${q}`)).json();
      expect(storms.get(key) ?? 0, server).toBe(active);
      const { total } = await (await get(app, `/api/v1/identities?only=alarmed&${now}&${q}`)).json();
      expect(alarmed.get(key) ?? 0, server).toBe(total);
    }
    expect([...storms.values()].some((active) => active > 0)).toBe(true);
    expect([...alarmed.values()].some((total) => total > 0)).toBe(true);
    const gaps = (await (await get(app, `/api/v1/context-gap?from=${TEST_NOW - 60 * MINUTE}&to=${TEST_NOW}`)).json())
      .servers as { server: string; trimRate: number | null }[];
    const rated = gaps.filter((gap) => gap.trimRate !== null);
    expect(rated.length).toBeGreaterThan(0);
    expect(trims).toEqual(new Map(rated.map((gap) => [JSON.stringify([gap.server]), gap.trimRate])));
  });

  it('reports the analysis as /health does, and the store size', async () => {
    const all = await samples(app);
    const { analysis } = await (await get(app, '/api/v1/health')).json();
    const one = (name: string) => all.find((sample) => sample.name === name)?.value;
    expect(one('lens_analysis_pending_events')).toBe(analysis.pendingEvents);
    expect(one('lens_analysis_pending_partitions')).toBe(analysis.pendingPartitions);
    // SQLite's pages, some of them still in the write-ahead log.
    const size = (file: string) => statSync(join(db.config.dataDir, file)).size;
    expect(one('lens_store_size_bytes')).toBeGreaterThanOrEqual(size('lens.sqlite'));
    expect(one('lens_store_size_bytes')).toBeLessThanOrEqual(size('lens.sqlite') + size('lens.sqlite-wal'));
  });

  it('keeps at most the configured label sets per family, the rest summed into one "other" set, and says how many', async () => {
    const uncapped = await samples(app);
    const capped = await samples(createTestApp(db.store, { metricsLabelSets: 3 }));
    expect(await promtoolCheck((await scrape(createTestApp(db.store, { metricsLabelSets: 3 }))).text)).toEqual({
      code: 0,
      output: '',
    });
    const folded = valuesOf(capped, 'lens_metric_label_sets_folded', ['metric']);
    for (const [family, labels] of [
      ['lens_requests_counted_total', ['server', 'bucket', 'kind']],
      ['lens_requests_withdrawn_total', ['server', 'bucket', 'kind']],
      ['lens_avoidable_requests_counted_total', ['server', 'client']],
      ['lens_storms_active', ['server']],
    ] as const) {
      const before = valuesOf(uncapped, family, labels);
      const after = valuesOf(capped, family, labels);
      const other = JSON.stringify(labels.map(() => 'other'));
      const metric = family.replace(/_total$/, '');
      if (before.size <= 3) {
        expect(after, family).toEqual(before);
        expect(folded.get(JSON.stringify([metric]))).toBe(0);
        continue;
      }
      expect(after.size, family).toBe(4);
      expect(after.has(other), family).toBe(true);
      expect(folded.get(JSON.stringify([metric])), family).toBe(before.size - 3);
      const sum = (values: Map<string, number>) => [...values.values()].reduce((a, b) => a + b, 0);
      expect(sum(after), family).toBe(sum(before));
      // The three kept are the largest, with their own values.
      const largest = [...before].sort(([, a], [, b]) => b - a).slice(0, 3);
      for (const [key, value] of largest) expect(after.get(key), key).toBe(value);
    }
  });
});

/** Names from logs that an exposition must keep as one label value each: quotes, escapes, line breaks, Unicode. */
const HOSTILE = [
  'quo"ted',
  'back\\slash',
  'new\nline',
  'carriage\rreturn',
  '} 1\nlens_fake_metric{server="x"} 99\n# TYPE lens_fake_metric gauge',
  '\\"',
  'ünïcødé 🚀 עברית e\u0301',
  'lone \uD800 surrogate',
  'other',
];

/** From `name` to `name`: a refusal and the same request twice more, avoidable after the refusal. */
function refusedTwiceMore(name: string, at: number) {
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { q: name } } };
  return [0, 1, 2].map((i) =>
    clientEvent({
      client: name,
      server: name,
      ts: new Date(at + i * 1000).toISOString(),
      request,
      response: rpcError(-32602, 'Unknown tool'),
    }),
  );
}

describe.each(STORE_KINDS)('GET /metrics on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null || toolsMissing)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeAll(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterAll(async () => db.dispose());

    it('keeps every name from the logs one escaped label value, in both formats', async () => {
      const events = HOSTILE.flatMap((name, i) => refusedTwiceMore(name, TEST_NOW - 30 * MINUTE + i * 10_000));
      expect((await postNdjson(app, events)).status).toBe(200);
      const { text } = await scrape(app);
      expect(await promtoolCheck(text)).toEqual({ code: 0, output: '' });
      expect(text).not.toMatch(/^lens_fake_metric/m);
      const stored = Object.keys((await (await get(app, '/api/v1/summary')).json()).servers);
      expect(stored).toContain('lone \uFFFD surrogate');
      for (const format of ['text', 'openmetrics'] as const) {
        const body = format === 'text' ? text : (await scrape(app, { accept: OPENMETRICS })).text;
        const parsed = await parseExposition(body, format);
        const servers = new Set(
          parsed.filter((s) => s.name === 'lens_requests_counted_total').map((s) => s.labels.server),
        );
        expect(servers, format).toEqual(new Set(stored));
        const pairs = valuesOf(parsed, 'lens_avoidable_requests_counted_total', ['server', 'client']);
        for (const name of stored.filter((s) => s !== 'other')) expect(pairs.get(JSON.stringify([name, name]))).toBe(2);
        // A real pair that reads "other" in every label is summed into the "other" set, and counted as folded.
        expect(pairs.get(JSON.stringify(['other', 'other']))).toBe(2);
        const folded = valuesOf(parsed, 'lens_metric_label_sets_folded', ['metric']);
        expect(folded.get(JSON.stringify(['lens_avoidable_requests_counted']))).toBe(1);
      }
    });

    it('never lowers a counter: a correction is counted as withdrawn, and counted less withdrawn is the API', async () => {
      const before = await samples(app);
      // A proxy's 200 for a request whose client saw a refusal, the client's record arriving later; and two 404s
      // of a server without a discovery document, then given one.
      const ts = new Date(TEST_NOW - 20 * MINUTE).toISOString();
      const http = { method: 'POST', path: '/mcp', status: 200, requestId: 'req-late-1' };
      await postNdjson(app, [proxyEvent({ server: 'joined', ts, http })]);
      const probes = ['/mcp/sse', '/admin'].map((path) =>
        proxyEvent({ server: 'notes', ts, http: { method: 'POST', path, status: 404 } }),
      );
      await postNdjson(app, probes);
      const middle = await samples(app);
      await postNdjson(app, [clientEvent({ server: 'joined', ts, http, response: rpcError(-32602, 'Unknown tool') })]);
      const put = await putJson(app, '/api/v1/servers/notes/discovery', {
        endpoints: [{ method: 'POST', path: '/mcp' }],
      });
      expect(await put.json()).toMatchObject({ reclassified: 2 });
      const after = await samples(app);
      const labels = ['server', 'bucket', 'kind'];
      for (const name of ['lens_requests_counted_total', 'lens_requests_withdrawn_total']) {
        const [a, b, c] = [before, middle, after].map((all) => valuesOf(all, name, labels));
        for (const [key, value] of a as Map<string, number>)
          expect(b?.get(key), `${name} ${key}`).toBeGreaterThanOrEqual(value);
        for (const [key, value] of b as Map<string, number>)
          expect(c?.get(key), `${name} ${key}`).toBeGreaterThanOrEqual(value);
      }
      const withdrawn = valuesOf(after, 'lens_requests_withdrawn_total', labels);
      expect(withdrawn.get(JSON.stringify(['joined', 'ok', 'ok']))).toBe(1);
      expect(withdrawn.get(JSON.stringify(['notes', 'ambiguous', 'unclassifiable_no_discovery']))).toBe(2);
      const counted = valuesOf(after, 'lens_requests_counted_total', labels);
      expect(counted.get(JSON.stringify(['notes', 'refusal', 'not_declared']))).toBe(2);
      expect(netOf(after, 'lens_requests', labels)).toEqual((await apiCounts(app)).requests);
    });

    it('reads the same counters after a restart on the same store, and notifications per delivery status', async () => {
      const receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(req.url === '/ok' ? 200 : req.url === '/gone' ? 404 : 503).end());
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      const allowedTargets = [new URL(url).host];
      const rule = {
        name: 'Any refusal',
        metric: 'refusal_count',
        critical: 1,
        windowSeconds: 3600,
        targets: ['ok', 'gone', 'down'].map((path) => ({ type: 'webhook', url: `${url}/${path}` })),
      };
      expect((await postJson(createTestApp(db.store, { allowedTargets }), '/api/v1/alerts/rules', rule)).status).toBe(
        201,
      );
      const own = new ProcessMetrics();
      expect(
        await evaluateDue(
          db.store,
          TEST_NOW,
          () => undefined,
          (s) => own.alertEvaluations.observe(s),
        ),
      ).toBe(1);
      let clock = TEST_NOW;
      for (let round = 0; round < 6; round++) {
        await deliverDue(db.store, { clock: () => clock, timeoutMs: 2000, backoffBaseMs: 1000, allowedTargets });
        clock += MINUTE;
      }
      await new Promise((resolve) => receiver.close(resolve));
      const { deliveries } = await (await get(app, '/api/v1/alerts/deliveries')).json();
      const statuses = (deliveries as { status: string }[]).map((d) => d.status).sort();
      expect(statuses).toEqual(['delivered', 'failed', 'refused']);

      const before = await samples(app);
      const restarted = await openStore(db.config);
      try {
        // A new process on the same store: the same counters, from the store; its own since-start counts at zero.
        const again = createTestApp(restarted);
        const after = await samples(again);
        const store = (all: ParsedSample[]) =>
          all.filter((s) => s.type === 'counter' && !s.name.startsWith('lens_ingest_lines'));
        expect(store(after).length).toBeGreaterThan(20);
        expect(store(after)).toEqual(store(before));
        expect(valuesOf(after, 'lens_alert_deliveries_total', ['status'])).toEqual(
          new Map(statuses.map((status) => [JSON.stringify([status]), 1])),
        );
        expect(valuesOf(after, 'lens_ingest_lines_total', ['outcome'])).toEqual(
          new Map(['accepted', 'duplicate', 'rejected'].map((outcome) => [JSON.stringify([outcome]), 0])),
        );
      } finally {
        await restarted.close();
      }
      expect(own.alertEvaluations.sample().count).toBe(1);
    });

    it('migrates a store with counts into the same totals', async () => {
      const before = await samples(app);
      await db.store.run(sql`DELETE FROM total_requests`);
      await db.store.run(sql`DELETE FROM total_avoidable`);
      await replayMigration(db.store, kind.name, 'all_time_totals', 'INSERT');
      const after = await samples(app);
      // Taken from the counts as they stand: what was withdrawn before is no longer told apart.
      for (const family of ['lens_requests', 'lens_avoidable_requests']) {
        const labels = family === 'lens_requests' ? ['server', 'bucket', 'kind'] : ['server', 'client'];
        expect(netOf(after, family, labels), family).toEqual(netOf(before, family, labels));
        expect([...valuesOf(after, `${family}_withdrawn_total`, labels).values()].every((v) => v === 0)).toBe(true);
      }
    });
  });
});

describe('who may scrape', () => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTempSqlite();
  });
  afterAll(async () => db.dispose());

  it('takes the admin token when one is set: 401 without, 403 with the ingest token', async () => {
    const app = createTestApp(db.store, { token: 'admin-secret', ingestToken: 'shipper-secret' });
    expect((await get(app, '/metrics')).status).toBe(401);
    expect((await get(app, '/metrics', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await get(app, '/metrics', { authorization: 'Bearer shipper-secret' })).status).toBe(403);
    const res = await get(app, '/metrics', { authorization: 'Bearer admin-secret' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('lens_requests_counted_total');
  });

  it('is rate limited like the reads, and answers an empty store', async () => {
    const app = createTestApp(db.store, {
      rateLimits: { ...DEFAULT_CONFIG.rateLimits, reads: { burst: 2, perSecond: 0.01 } },
    });
    const empty = await (await get(app, '/metrics')).text();
    // Every family is described, the federation's with no sample yet.
    expect(empty).toContain('# TYPE lens_requests_counted_total counter\n# HELP lens_requests_withdrawn_total');
    expect(empty).toContain('lens_ingest_lines_total{outcome="accepted"} 0');
    expect((await get(app, '/api/v1/summary')).status).toBe(200);
    const limited = await get(app, '/metrics');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it.skipIf(toolsMissing)("counts this process's ingested lines and folds", async () => {
    const own = new ProcessMetrics();
    const folder = new Folder(db.store, { onFold: (seconds) => own.folds.observe(seconds) });
    const app = createApp({
      store: db.store,
      clock: () => TEST_NOW,
      config: DEFAULT_CONFIG,
      folder,
      processMetrics: own,
    });
    const event = clientEvent();
    const lines = [event, event, clientEvent(), '{not json', { ts: 'yesterday' }];
    expect((await postNdjson(app, lines)).status).toBe(200);
    await folder.settled();
    const all = await samples(app);
    expect(valuesOf(all, 'lens_ingest_lines_total', ['outcome'])).toEqual(
      new Map([
        ['["accepted"]', 2],
        ['["duplicate"]', 1],
        ['["rejected"]', 2],
      ]),
    );
    const count = all.find((s) => s.name === 'lens_fold_duration_seconds_count')?.value;
    expect(count).toBeGreaterThanOrEqual(1);
    expect(all.find((s) => s.name === 'lens_fold_duration_seconds_bucket' && s.labels.le === '+Inf')?.value).toBe(
      count,
    );
  });
});
