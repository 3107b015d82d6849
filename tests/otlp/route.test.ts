import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../db/runner.ts';
import { ProtoReader } from '../../shared/otlp/proto-reader.ts';
import { analysed, createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';
import { openTempSqlite, STORE_KINDS, type TestStore } from '../support/stores.ts';
import { fixtureBytes, fixtureJson, jsonBytes } from './support.ts';

const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

/** Answers once the fold behind the commit has counted what was stored, as the reads after it expect. */
async function send(app: TestApp, body: Uint8Array, type: string, headers: Record<string, string> = {}, query = '') {
  const response = await app.request(`/v1/traces${query}`, {
    method: 'POST',
    headers: { 'content-type': type, host: '127.0.0.1:7700', ...headers },
    body: new Uint8Array(body),
  });
  await analysed(app);
  return response;
}

/** The ids of every stored record (records=all: both of a request two observers recorded). */
async function storedIds(app: TestApp): Promise<string[]> {
  const res = await get(app, '/api/v1/events?records=all&limit=1000');
  expect(res.status).toBe(200);
  return ((await res.json()).events as { id: string }[]).map((e) => e.id).sort();
}

/** `partial_success` of a protobuf ExportTraceServiceResponse, read with our own reader. */
function partialOf(bytes: Uint8Array): { rejectedSpans: number; errorMessage: string } | undefined {
  const outer = new ProtoReader(bytes);
  if (outer.done()) return undefined;
  outer.tag();
  const inner = outer.message();
  const found = { rejectedSpans: 0, errorMessage: '' };
  while (!inner.done()) {
    const { field } = inner.tag();
    if (field === 1) found.rejectedSpans = inner.int64();
    else found.errorMessage = inner.string();
  }
  return found;
}

/**
 * A copy of the client's protobuf body with the trace id of the 404 probe's span zeroed (a span no other one needs:
 * an MCP span whose HTTP child is bad loses its server name with it), and that span's position.
 */
function oneBadSpan(): { body: Uint8Array; ordinal: number } {
  const copy = fixtureBytes('client', 'proto').slice();
  const spans = fixtureJson('client').resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
  const index = spans.findIndex((s) => JSON.stringify(s).includes('"req-0012"'));
  const spanId = Buffer.from(String(spans[index]?.spanId), 'hex');
  // trace_id (field 1, 16 bytes) comes right before span_id (field 2, 8 bytes) in what the exporter writes.
  const at = Buffer.from(copy).indexOf(Buffer.from([0x12, 0x08, ...spanId])) - 16;
  copy.fill(0, at, at + 16);
  return { body: copy, ordinal: index + 1 };
}

describe.each(STORE_KINDS)('POST /v1/traces on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    it('stores a protobuf body and answers full success in protobuf: an empty message', async () => {
      const res = await send(app, fixtureBytes('client', 'proto'), PROTOBUF);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(PROTOBUF);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(0));
      expect(await storedIds(app)).toHaveLength(13);
    });

    it('stores a JSON body and answers in JSON, the same events as from protobuf', async () => {
      const res = await send(app, fixtureBytes('server', 'json'), JSON_TYPE);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({});
      const fromJson = await storedIds(app);
      expect(fromJson).toHaveLength(13);
      await send(app, fixtureBytes('server', 'proto'), PROTOBUF);
      expect(await storedIds(app)).toEqual(fromJson);
    });

    it('stores a gzip body as the plain one: sending both, and again, counts nothing twice', async () => {
      const gzip = await send(app, fixtureBytes('client', 'gzip'), PROTOBUF, { 'content-encoding': 'gzip' });
      expect(gzip.status).toBe(200);
      const ids = await storedIds(app);
      for (let again = 0; again < 2; again++) {
        const res = await send(app, fixtureBytes('client', 'proto'), PROTOBUF);
        expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(0));
      }
      expect(await storedIds(app)).toEqual(ids);
      const summary = await (await get(app, '/api/v1/summary?from=0&to=9999999999999')).json();
      expect(summary.overall.total).toBe(13);
      expect((await (await get(app, '/api/v1/events?limit=1000')).json()).total).toEqual({ count: 13, capped: false });
    });

    it("counts a request once when the client's and the server's bodies both record it", async () => {
      await send(app, fixtureBytes('server', 'proto'), PROTOBUF);
      await send(app, fixtureBytes('client', 'json'), JSON_TYPE);
      expect(await storedIds(app)).toHaveLength(13 + 13);
      // Each server record joins its client record by X-Request-Id and traceparent, the ping the server sent
      // included: it is one record with the POST that brought the client's answer, which the client traced.
      const summary = await (await get(app, '/api/v1/summary?from=0&to=9999999999999')).json();
      expect(summary.overall.total).toBe(13);
      expect((await (await get(app, '/api/v1/events?limit=1000')).json()).total).toEqual({ count: 13, capped: false });
    });

    it('answers partial success for a body with one bad span, in the encoding of the request', async () => {
      const body = fixtureJson('client');
      const spans = body.resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
      const { startTimeUnixNano: _, ...noStart } = spans[1] ?? {};
      spans[1] = noStart;
      const json = await send(app, jsonBytes(body), JSON_TYPE);
      expect(json.status).toBe(200);
      expect(await json.json()).toEqual({
        partialSuccess: {
          rejectedSpans: '1',
          errorMessage: '1 span could not become events: the span has no start time (span 2)',
        },
      });
      expect(await storedIds(app)).toHaveLength(12);

      const bad = oneBadSpan();
      const proto = await send(app, bad.body, PROTOBUF);
      expect(proto.status).toBe(200);
      expect(partialOf(new Uint8Array(await proto.arrayBuffer()))).toEqual({
        rejectedSpans: 1,
        errorMessage: `1 span could not become events: the trace id is not 16 bytes, or is all zero (span ${bad.ordinal})`,
      });
    });

    it('counts the spans of events the ingest refuses as rejected too', async () => {
      const body = fixtureJson('server');
      const resource = body.resourceSpans[0]?.resource;
      if (resource) resource.attributes = [{ key: 'service.name', value: { stringValue: 'x'.repeat(300) } }];
      const res = await send(app, jsonBytes(body), JSON_TYPE);
      expect(await res.json()).toEqual({
        partialSuccess: {
          rejectedSpans: '14',
          errorMessage:
            '14 spans could not become events: "server": "server" must be a non-empty string of at most 200 ' +
            'characters (spans 1, 2, 3, 4, 5 and 8 more)',
        },
      });
      expect(await storedIds(app)).toEqual([]);
    });

    it('answers 400, never retried by an exporter, for a body that does not decode', async () => {
      for (const [body, type] of [
        [new TextEncoder().encode('garbage, not protobuf'), PROTOBUF],
        [new TextEncoder().encode('{"resourceSpans": ['), JSON_TYPE],
        [jsonBytes({ resourceSpans: 'none' }), JSON_TYPE],
        [Uint8Array.from([0x1f, 0x8b, 0x00]), PROTOBUF],
      ] as const) {
        const headers: Record<string, string> = body[0] === 0x1f ? { 'content-encoding': 'gzip' } : {};
        const res = await send(app, body, type, headers);
        expect(res.status).toBe(400);
        expect((await res.json()).error).toMatchObject({ retryable: false });
      }
      expect(await storedIds(app)).toEqual([]);
    });

    it('answers 415 for another content type or encoding, 413 past --max-body, 404 for GET', async () => {
      expect((await send(app, fixtureBytes('client', 'json'), 'text/plain')).status).toBe(415);
      // A content type is the sender's text: one named like an object's own member is no encoding either.
      for (const hostile of ['constructor', '__proto__', 'toString']) {
        expect((await send(app, fixtureBytes('client', 'json'), hostile)).status, hostile).toBe(415);
      }
      const brotli = await send(app, fixtureBytes('client', 'proto'), PROTOBUF, { 'content-encoding': 'br' });
      expect(brotli.status).toBe(415);
      const small = createTestApp(db.store, { maxBodyBytes: 4096 });
      expect((await send(small, fixtureBytes('client', 'proto'), PROTOBUF)).status).toBe(413);
      const bomb = new Uint8Array(gzipSync(new Uint8Array(1 << 20)));
      expect((await send(small, bomb, PROTOBUF, { 'content-encoding': 'gzip' })).status).toBe(413);
      expect((await get(app, '/v1/traces')).status).toBe(404);
    });

    it('names the server from ?server=, and refuses an empty name', async () => {
      expect((await send(app, fixtureBytes('client', 'proto'), PROTOBUF, {}, '?server=docs')).status).toBe(200);
      const servers = await (await get(app, '/api/v1/servers?from=0&to=9999999999999')).json();
      expect(JSON.stringify(servers)).toContain('"docs"');
      expect((await send(app, fixtureBytes('client', 'proto'), PROTOBUF, {}, '?server=')).status).toBe(400);
    });
  });
});

describe('POST /v1/traces protections', () => {
  let db: TestStore;
  beforeEach(async () => {
    db = await openTempSqlite();
  });
  afterEach(async () => db.dispose());

  it('requires a token when one is configured, and takes the ingest token as well as the admin one', async () => {
    const app = createTestApp(db.store, { token: 'admin-secret', ingestToken: 'ship-secret' });
    const body = fixtureBytes('client', 'proto');
    const none = await send(app, body, PROTOBUF);
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe('unauthenticated');
    expect((await send(app, body, PROTOBUF, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await send(app, body, PROTOBUF, { authorization: 'Bearer ship-secret' })).status).toBe(200);
    expect((await send(app, body, PROTOBUF, { authorization: 'Bearer admin-secret' })).status).toBe(200);
  });

  it('refuses a foreign Host or Origin, as the API does', async () => {
    const app = createTestApp(db.store);
    const body = fixtureBytes('client', 'proto');
    expect((await send(app, body, PROTOBUF, { host: 'rebound.example' })).status).toBe(403);
    expect((await send(app, body, PROTOBUF, { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('shares the ingest rate limit: 429 with Retry-After once the bucket is spent', async () => {
    const app = createTestApp(db.store, {
      rateLimits: { ingest: { burst: 2, perSecond: 0.01 }, reads: { burst: 100, perSecond: 100 } },
    });
    expect((await postNdjson(app, [clientEvent()])).status).toBe(200);
    expect((await send(app, fixtureBytes('client', 'proto'), PROTOBUF)).status).toBe(200);
    const limited = await send(app, fixtureBytes('client', 'proto'), PROTOBUF);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it.each([
    ['busy', 'SQLITE_BUSY', 1],
    ['full (507 elsewhere, which OTLP never retries)', 'SQLITE_FULL', 60],
  ])('answers 503 with Retry-After when the store is %s', async (_, code, wait) => {
    const failing = new Proxy(db.store, {
      get(target, key, receiver) {
        if (key === 'transaction') return () => Promise.reject(Object.assign(new Error(code), { code }));
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    const res = await send(createTestApp(failing), fixtureBytes('client', 'proto'), PROTOBUF);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe(String(wait));
    expect((await res.json()).error).toMatchObject({ retryable: true, retryAfterSeconds: wait });
  });
});
