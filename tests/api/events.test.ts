import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { BASE_TS, clientEvent, rpcError } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

describe.each(STORE_KINDS)('reading events and summaries on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    const at = (minutes: number) => new Date(BASE_TS + minutes * 60_000).toISOString();

    async function seed() {
      await postNdjson(app, [
        clientEvent({ ts: at(0), client: 'a', server: 's1' }),
        clientEvent({ ts: at(1), client: 'a', server: 's1', response: rpcError(-32601, 'Method not found') }),
        clientEvent({ ts: at(2), client: 'b', server: 's1', http: { method: 'POST', path: '/mcp', status: 429 } }),
        clientEvent({ ts: at(3), client: 'b', server: 's2', timeout: true, response: undefined }),
        clientEvent({ ts: at(4), client: 'b', server: 's2', http: { method: 'POST', path: '/mcp', status: 503 } }),
      ]);
    }

    it('answers an empty store with zero counts and no events', async () => {
      const summary = await (await get(app, '/api/v1/summary')).json();
      expect(summary.overall).toEqual({
        total: 0,
        avoidable: 0,
        buckets: { ok: 0, pending: 0, unknown: 0, refusal: 0, transient: 0, throttled: 0, ambiguous: 0 },
        kinds: {},
      });
      expect(summary.servers).toEqual({});
      expect(await (await get(app, '/api/v1/events')).json()).toEqual({
        events: [],
        nextCursor: null,
        total: { count: 0, capped: false },
      });
    });

    it('counts per bucket and kind overall, per server and per client over [from, to)', async () => {
      await seed();
      const all = await (await get(app, '/api/v1/summary')).json();
      expect(all.overall.buckets).toEqual({
        ok: 1,
        pending: 0,
        unknown: 0,
        refusal: 1,
        transient: 2,
        throttled: 1,
        ambiguous: 0,
      });
      expect(all.overall.kinds.refusal).toEqual({ not_supported: 1 });
      expect(all.servers.s1.total).toBe(3);
      expect(all.clients.b.buckets).toMatchObject({ throttled: 1, transient: 2 });

      // ISO on one end, epoch milliseconds on the other; `to` is exclusive.
      const window = await (await get(app, `/api/v1/summary?from=${at(1)}&to=${BASE_TS + 3 * 60_000}`)).json();
      expect(window.overall.total).toBe(2);
      expect(window.range).toEqual({ from: at(1), to: at(3) });
      const one = await (await get(app, '/api/v1/summary?server=s2')).json();
      expect(Object.keys(one.servers)).toEqual(['s2']);
    });

    it('filters events and explains each one', async () => {
      await seed();
      const refusals = await (await get(app, '/api/v1/events?bucket=refusal')).json();
      expect(refusals.events).toHaveLength(1);
      expect(refusals.events[0]).toMatchObject({
        client: 'a',
        server: 's1',
        bucket: 'refusal',
        kind: 'not_supported',
        evidence: 'rpc_code',
        rpcCode: -32601,
        method: 'tools/call',
        response: { error: { code: -32601 } },
      });
      expect(refusals.events[0].rule).toEqual(expect.any(String));
      expect(refusals.events[0].identity).toMatch(/^s1:[0-9a-f]{32}$/);
      const byClient = await (await get(app, '/api/v1/events?client=b&kind=timeout')).json();
      expect(byClient.events.map((e: { ts: string }) => e.ts)).toEqual([at(3)]);
    });

    it('reads one event by id, and answers 404 for an unknown one', async () => {
      const event = clientEvent({ id: 'one/with:odd chars ü' });
      await postNdjson(app, [event]);
      const res = await get(app, `/api/v1/events/${encodeURIComponent('one/with:odd chars ü')}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: 'one/with:odd chars ü', bucket: 'ok', request: event.request });
      const missing = await get(app, '/api/v1/events/nope');
      expect(missing.status).toBe(404);
      expect((await missing.json()).error.code).toBe('not_found');
    });

    it('pages newest first with a cursor until the last page', async () => {
      await seed();
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${cursor}` : '';
        const page = await (await get(app, `/api/v1/events?limit=2${query}`)).json();
        seen.push(...page.events.map((e: { ts: string }) => e.ts));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual([at(4), at(3), at(2), at(1), at(0)]);
    });

    it('refuses a bad filter with a 400 naming the field', async () => {
      for (const [query, field] of [
        ['bucket=nope', 'bucket'],
        ['from=yesterday', 'from'],
        ['to=100000000000000000000', 'to'],
        ['limit=0', 'limit'],
        ['cursor=not-a-cursor', 'cursor'],
      ]) {
        const res = await get(app, `/api/v1/events?${query}`);
        expect(res.status, query).toBe(400);
        const { error } = await res.json();
        expect(error).toMatchObject({ code: 'invalid_request', field, retryable: false });
      }
    });

    it('refuses a summary bound that is no date or out of range, or a server name too long, naming the field', async () => {
      for (const [query, field] of [
        ['from=yesterday', 'from'],
        ['to=99999999999999999', 'to'],
        [`server=${'s'.repeat(201)}`, 'server'],
      ]) {
        const res = await get(app, `/api/v1/summary?${query}`);
        expect(res.status, query).toBe(400);
        expect((await res.json()).error).toMatchObject({ code: 'invalid_request', field, retryable: false });
      }
    });
  });
});
