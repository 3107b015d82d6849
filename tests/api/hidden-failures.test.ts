import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backfillActionability } from '../../api/services/actionability-backfill.ts';
import { readMetric, storeReads } from '../../api/services/alerts/readings.ts';
import { foldAll } from '../../api/services/fold.ts';
import { createTestApp, get, postNdjson, TEST_NOW, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';
import { asBeforeContentView, replayMigration } from '../support/migrations.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/** A tools/call answered at HTTP 200 without isError, saying `text`, `minutesAgo` before the test's clock. */
const answered = (server: string, text: string, minutesAgo = 10) =>
  clientEvent({
    server,
    ts: new Date(TEST_NOW - minutesAgo * 60_000).toISOString(),
    response: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } },
  });

const TRAFFIC = [
  answered('quotes', 'Error: no record found for symbol TEST'),
  answered('quotes', 'Rate limit exceeded, retry after 30 s'),
  answered('quotes', 'No errors found.'),
  answered('notes', 'Release 1.1.0: streaming responses.'),
  answered('notes', 'error handling improved in 2.0'),
];

describe.each(STORE_KINDS)('hidden failures on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
      expect((await postNdjson(app, TRAFFIC)).status).toBe(200);
    });
    afterEach(async () => db.dispose());

    const range = `from=${new Date(TEST_NOW - 3_600_000).toISOString()}&to=${new Date(TEST_NOW).toISOString()}`;

    it('are counted per server as failures with control 000000, and leave the buckets alone', async () => {
      const answer = await (await get(app, `/api/v1/actionability?${range}`)).json();
      expect(answer.hidden).toEqual({ failures: 2, throttles: 1 });
      expect(answer.control.profiles).toEqual({ '000000': 2 });
      // The throttle's text names its delay: replay timing (R) once the text is read.
      expect(answer.content.profiles).toEqual({ '100000': 1, '111001': 1 });
      const quotes = answer.servers.find((s: { server: string }) => s.server === 'quotes');
      expect(quotes.hidden).toEqual({ failures: 2, throttles: 1 });
      expect(answer.servers.map((s: { server: string }) => s.server)).toEqual(['quotes']);
      const ok = await (await get(app, `/api/v1/events?${range}&bucket=ok&limit=100`)).json();
      expect(ok.events).toHaveLength(5);
    });

    it('are listed with the text that shows them, throttles on their own', async () => {
      const page = await (await get(app, `/api/v1/events?${range}&server=quotes&hidden=failure`)).json();
      const shown = page.events.map(
        (e: { actionability: { content: { text: { D: { rule: string; span: string } } } } }) =>
          e.actionability.content.text.D,
      );
      expect(shown).toEqual(
        expect.arrayContaining([
          { rule: 'error_prefix', span: 'Error: no record found for symbol TEST' },
          { rule: 'rate_limit_sentence', span: 'Rate limit exceeded, retry after 30 s' },
        ]),
      );
      expect(shown).toHaveLength(2);
      const throttles = await (await get(app, `/api/v1/events?${range}&hidden=throttle`)).json();
      expect(throttles.events).toHaveLength(1);
      expect(throttles.events[0].actionability.hidden).toEqual({ failure: true, throttle: true });
    });

    it('are alert metrics: hidden_failures and hidden_throttles per server and in all', async () => {
      const reads = storeReads(db.store);
      const rule = (metric: 'hidden_failures' | 'hidden_throttles', groupBy: 'none' | 'server') => ({
        metric,
        groupBy,
        scope: {},
        windowSeconds: 3600,
      });
      const values = async (metric: 'hidden_failures' | 'hidden_throttles', groupBy: 'none' | 'server') =>
        (await readMetric(db.store, reads, rule(metric, groupBy), TEST_NOW)).map(
          ({ group, value }) => [group, value] as const,
        );
      // A server with traffic and none reads 0.
      expect(new Map(await values('hidden_failures', 'server'))).toEqual(
        new Map([
          ['quotes', 2],
          ['notes', 0],
        ]),
      );
      expect(new Map(await values('hidden_throttles', 'server'))).toEqual(
        new Map([
          ['quotes', 1],
          ['notes', 0],
        ]),
      );
      expect(await values('hidden_failures', 'none')).toEqual([['', 2]]);
    });

    it('are gauges of the last hour in /metrics', async () => {
      const text = await (await get(app, '/metrics')).text();
      expect(text).toContain('# TYPE lens_hidden_failures gauge');
      expect(text).toMatch(/^lens_hidden_failures\{server="quotes"\} 2$/m);
      expect(text).toMatch(/^lens_hidden_throttles\{server="quotes"\} 1$/m);
      expect(text).not.toMatch(/^lens_hidden_failures\{server="notes"\}/m);
    });

    it("make a hidden throttle's next requests before its delay avoidable, in the store's gate too", async () => {
      const at = (minutesAgo: number, seconds: number, text: string) => ({
        ...answered('ledger', text, minutesAgo),
        ts: new Date(TEST_NOW - minutesAgo * 60_000 + seconds * 1000).toISOString(),
        request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'post', arguments: { n: seconds } } },
      });
      // In two batches: the wait holds across them.
      await postNdjson(app, [at(20, 0, 'rate limited, retry after 30'), at(20, 5, 'posted')]);
      await postNdjson(app, [at(20, 20, 'posted'), at(20, 40, 'posted')]);
      const page = await (await get(app, `/api/v1/events?${range}&server=ledger`)).json();
      const verdicts = page.events
        .map((e: { ts: string; avoidable: boolean; gateReason: string | null }) => [e.ts, e.avoidable, e.gateReason])
        .sort();
      expect(verdicts.map(([, avoidable, reason]: unknown[]) => [avoidable, reason])).toEqual([
        [false, null],
        [true, 'before_retry_after'],
        [true, 'before_retry_after'],
        [false, null],
      ]);
    });

    it('are found after migration content_view upgrades a store of the release before', async () => {
      const before = await (await get(app, `/api/v1/actionability?${range}`)).json();
      // The release before: no profile on a success, none counted, act_profile a smallint on PostgreSQL.
      await db.store.run(sql`UPDATE events SET act_profile = NULL WHERE bucket = 'ok'`);
      await db.store.run(sql`DELETE FROM actionability_minute`);
      await db.store.run(sql`DELETE FROM actionability_hour`);
      await asBeforeContentView(db.store);
      await replayMigration(db.store, kind.name, 'content_view', () => true);
      await replayMigration(db.store, kind.name, 'record_sources', () => true);
      await replayMigration(db.store, kind.name, 'input_requests', () => true);
      expect(await backfillActionability(db.store)).toBe(2);
      await foldAll(db.store);
      const after = await (await get(app, `/api/v1/actionability?${range}`)).json();
      expect(after.hidden).toEqual(before.hidden);
      expect(after.servers).toEqual(before.servers);
    });

    it('are found in events stored before the content view, once, by reading their lines again', async () => {
      const before = await (await get(app, `/api/v1/actionability?${range}`)).json();
      // As a store before migration content_view left them: no profile on a success, no content view, no count.
      await db.store.run(sql`UPDATE events SET act_profile = NULL WHERE bucket = 'ok'`);
      await db.store.run(sql`DELETE FROM actionability_minute`);
      await db.store.run(sql`DELETE FROM actionability_hour`);
      await db.store.run(sql`DELETE FROM settings WHERE key LIKE 'actionability_v%'`);
      expect((await (await get(app, `/api/v1/actionability?${range}`)).json()).hidden.failures).toBe(0);
      expect(await backfillActionability(db.store)).toBe(2);
      await foldAll(db.store);
      const after = await (await get(app, `/api/v1/actionability?${range}`)).json();
      expect({ ...after, analysedThrough: null, lagMs: null }).toEqual({
        ...before,
        analysedThrough: null,
        lagMs: null,
      });
      expect(await backfillActionability(db.store)).toBe(0);
    });
  });
});
