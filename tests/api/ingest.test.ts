import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { corpusText } from '../support/corpus.ts';
import { BASE_TS, clientEvent, proxyEvent, rpcError, uniqueId } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

describe.each(STORE_KINDS)('ingest on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function total(query = '') {
      const res = await get(app, `/api/v1/summary${query}`);
      expect(res.status).toBe(200);
      return (await res.json()).overall.total as number;
    }

    it('accepts an empty body and stores nothing', async () => {
      const res = await postNdjson(app, []);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        accepted: 0,
        duplicates: 0,
        rejected: [],
        rejectedTotal: 0,
        warnings: [],
        warningsTotal: 0,
        span: null,
      });
      expect(await total()).toBe(0);
    });

    it('keeps the good lines of a batch and reports the bad one by line number', async () => {
      const res = await postNdjson(app, [
        clientEvent(),
        '{"ts": oops',
        clientEvent(),
        { source: 'client', server: 's' },
      ]);
      const report = await res.json();
      expect(report.accepted).toBe(2);
      expect(report.rejected).toEqual([
        expect.objectContaining({ line: 2, code: 'invalid_json' }),
        expect.objectContaining({ line: 4, code: 'missing_field', field: 'ts' }),
      ]);
      expect(report.rejectedTotal).toBe(2);
      expect(await total()).toBe(2);
    });

    it('stores a name with a NUL character without it, and says so', async () => {
      const res = await postNdjson(app, [clientEvent(), clientEvent({ server: 'bad\u0000name' }), clientEvent()]);
      const report = await res.json();
      expect(report).toMatchObject({ accepted: 3, rejectedTotal: 0, warningsTotal: 1 });
      expect(report.warnings).toEqual([{ line: 2, field: 'server', message: 'NUL characters removed' }]);
      const servers = await (await get(app, '/api/v1/servers')).json();
      expect(JSON.stringify(servers)).toContain('"badname"');
    });

    it('numbers lines as an editor does, counting blank lines and CRLF endings', async () => {
      const body = `${JSON.stringify(clientEvent())}\r\n\r\n{bad}\r\n`;
      const res = await app.request('/api/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1' },
        body,
      });
      const report = await res.json();
      expect(report.accepted).toBe(1);
      expect(report.rejected).toEqual([expect.objectContaining({ line: 3, code: 'invalid_json' })]);
    });

    it('counts a re-sent id as a duplicate, within a batch and across batches', async () => {
      const event = clientEvent();
      const first = await (await postNdjson(app, [event, event])).json();
      expect(first).toMatchObject({ accepted: 1, duplicates: 1 });
      const second = await (await postNdjson(app, [event, clientEvent()])).json();
      expect(second).toMatchObject({ accepted: 1, duplicates: 1 });
      expect(await total()).toBe(2);
    });

    it('deduplicates id-less events by their content, whatever the encoding', async () => {
      const { id: _drop, ...anonymous } = clientEvent();
      await postNdjson(app, [anonymous]);
      const again = await (await postNdjson(app, [anonymous])).json();
      expect(again).toMatchObject({ accepted: 0, duplicates: 1 });
      // The same event with other whitespace, key order and timestamp form, as a JSON array element.
      const reordered = Object.fromEntries(
        Object.entries({ ...anonymous, ts: Date.parse(anonymous.ts as string) }).reverse(),
      );
      const asArray = await app.request('/api/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: '127.0.0.1' },
        body: JSON.stringify([reordered], null, 2),
      });
      expect(await asArray.json()).toMatchObject({ accepted: 0, duplicates: 1 });
    });

    it('accepts a gzip body and a JSON array', async () => {
      const gz = gzipSync(`${JSON.stringify(clientEvent())}\n${JSON.stringify(clientEvent())}\n`);
      const zipped = await app.request('/api/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip', host: '127.0.0.1' },
        body: gz,
      });
      expect(await zipped.json()).toMatchObject({ accepted: 2 });
      const array = await app.request('/api/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: '127.0.0.1' },
        body: JSON.stringify([clientEvent(), { nope: true }]),
      });
      const report = await array.json();
      expect(report).toMatchObject({ accepted: 1, rejectedTotal: 1 });
      expect(report.rejected[0]).toMatchObject({ line: 2, code: 'missing_field' });
    });

    it('refuses a body over the limit with 413 and our error shape, storing nothing', async () => {
      const small = createTestApp(db.store, { maxBodyBytes: 1024 });
      const lines = Array.from({ length: 20 }, () => clientEvent());
      const res = await postNdjson(small, lines);
      expect(res.status).toBe(413);
      const body = await res.json();
      expect(body.error).toMatchObject({ code: 'payload_too_large', retryable: false });
      expect(body.error.fix).toEqual(expect.any(String));
      expect(await total()).toBe(0);
    });

    it('refuses a gzip body that inflates past the limit (a zip bomb) with 413', async () => {
      const small = createTestApp(db.store, { maxBodyBytes: 4096 });
      const bomb = gzipSync(Buffer.alloc(1024 * 1024, 0x20));
      const res = await small.request('/api/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip', host: '127.0.0.1' },
        body: bomb,
      });
      expect(res.status).toBe(413);
      expect((await res.json()).error.code).toBe('payload_too_large');
    });

    it('refuses a wrong content type with 415', async () => {
      const res = await postNdjson(app, [clientEvent()], { 'content-type': 'text/csv' });
      expect(res.status).toBe(415);
      expect((await res.json()).error).toMatchObject({ code: 'unsupported_media_type', retryable: false });
    });

    it('refuses a body that is not UTF-8 without storing any of it', async () => {
      const good = Buffer.from(`${JSON.stringify(clientEvent())}\n`);
      const res = await app.request('/api/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1' },
        body: Buffer.concat([good, Buffer.from([0xff, 0xfe, 0x0a])]),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe('invalid_encoding');
      expect(await total()).toBe(0);
    });

    it('stores events for a server never seen before and lists it', async () => {
      const server = `brand-new-${uniqueId()}`;
      await postNdjson(app, [clientEvent({ server })]);
      const summary = await (await get(app, '/api/v1/summary')).json();
      expect(Object.keys(summary.servers)).toContain(server);
      const discovery = await get(app, `/api/v1/servers/${encodeURIComponent(server)}/discovery`);
      expect(discovery.status).toBe(200);
      expect((await discovery.json()).discovery).toBeNull();
    });

    it('keeps Unicode names and frames intact', async () => {
      const server = 'サーバー-é-🚀';
      const request = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'suche', arguments: { q: 'Grüße 👋' } },
      };
      await postNdjson(app, [clientEvent({ server, client: 'agent-ß', request })]);
      const page = await (await get(app, `/api/v1/events?server=${encodeURIComponent(server)}`)).json();
      expect(page.events).toHaveLength(1);
      expect(page.events[0]).toMatchObject({ server, client: 'agent-ß', request });
      expect(page.events[0].identity).toMatch(new RegExp(`^${server}:[0-9a-f]{32}$`, 'u'));
    });

    it('stores and counts a 2026-07-28 request whose clientInfo holds an unpaired surrogate', async () => {
      // JSON can spell `\ud800`, Unicode cannot: canonical JSON refuses it (RFC 8785). `npm run fuzz` found such a
      // clientInfo failing its whole batch with 500; a reader of log values takes the refusal as "no canonical form".
      const [first, second] = corpusText('mcp-ts-v2', 'client.ndjson').trim().split('\n') as [string, string];
      const broken = second.replace('clientInfo":{"name":"harbor-agent"', 'clientInfo":{"name":"harbor-\\ud800agent"');
      expect(broken).not.toBe(second);
      const res = await postNdjson(app, [first, broken]);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ accepted: 2, rejectedTotal: 0 });
      expect((await (await get(app, '/api/v1/health')).json()).analysis).toMatchObject({ pendingEvents: 0 });
      expect(await total('?from=2026-12-01T00:00:00Z&to=2026-12-31T00:00:00Z')).toBe(2);
    });

    it('counts a request logged by both a client and a proxy once, with the client view', async () => {
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const request = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'x', _meta: { traceparent } } };
      // The proxy saw 200; the client saw a JSON-RPC error in the body. The proxy arrives first.
      await postNdjson(app, [proxyEvent({ request })]);
      await postNdjson(app, [clientEvent({ request, response: rpcError(-32602, 'Unknown tool') })]);
      const summary = await (await get(app, '/api/v1/summary')).json();
      expect(summary.overall.total).toBe(1);
      expect(summary.overall.buckets).toMatchObject({ refusal: 1, ok: 0 });
      // Listed once too, the proxy's record behind the client's; both are records.
      const page = await (await get(app, '/api/v1/events')).json();
      expect(page.events).toMatchObject([{ source: 'client', counted: true, partnerRecord: { source: 'proxy' } }]);
      const records = await (await get(app, '/api/v1/events?records=all')).json();
      expect(records.events).toHaveLength(2);
      expect(records.events.filter((e: { counted: boolean }) => e.counted)).toHaveLength(1);
    });

    it('counts a request once when its client and proxy records arrive in two simultaneous requests', async () => {
      const pairs = Array.from({ length: 500 }, (_, i) => {
        const request = {
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'x', _meta: { traceparent: `00-c-${i}-01` } },
        };
        return [clientEvent({ request }), proxyEvent({ request })];
      });
      await Promise.all([
        postNdjson(
          app,
          pairs.map(([client]) => client as object),
        ),
        postNdjson(
          app,
          pairs.map(([, proxy]) => proxy as object),
        ),
      ]);
      expect(await total()).toBe(500);
    });

    it('joins client and proxy records by session and JSON-RPC id when there is no trace context', async () => {
      const request = { jsonrpc: '2.0', id: 'req-7', method: 'tools/call', params: { name: 'x' } };
      const session = 'sess-ü-1';
      await postNdjson(app, [clientEvent({ session, request, timeout: true, response: undefined })]);
      await postNdjson(app, [proxyEvent({ session, request }), proxyEvent({ session: 'other', request })]);
      const summary = await (await get(app, '/api/v1/summary')).json();
      expect(summary.overall.total).toBe(2);
      expect(summary.overall.buckets).toMatchObject({ transient: 1, ok: 1 });
    });

    it('takes a 100k-line batch in one request', async () => {
      const lines: string[] = [];
      for (let i = 0; i < 100_000; i++) {
        const status = i % 10 === 0 ? 503 : 200;
        lines.push(
          JSON.stringify({
            id: uniqueId(),
            ts: BASE_TS + i,
            source: 'client',
            client: `a${i % 7}`,
            server: 's',
            http: { status },
          }),
        );
      }
      const res = await postNdjson(app, lines);
      expect(await res.json()).toMatchObject({ accepted: 100_000, duplicates: 0, rejectedTotal: 0 });
      const summary = await (await get(app, '/api/v1/summary')).json();
      expect(summary.overall.total).toBe(100_000);
      expect(summary.overall.buckets).toMatchObject({ ok: 90_000, transient: 10_000 });
      expect(Object.keys(summary.clients)).toHaveLength(7);
    });
  });
});
