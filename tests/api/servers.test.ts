import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureServers, lockServerConfig, shareServerConfigs } from '../../db/queries/servers.ts';
import { openStore } from '../../db/store.ts';
import { DAY_MS } from '../../shared/analysis/time-buckets.ts';
import { SOURCE_SAMPLE } from '../../shared/source-formats.ts';
import { createTestApp, get, postNdjson, putJson, type TestApp } from '../support/app.ts';
import { BASE_TS, clientEvent, proxyEvent, rpcError } from '../support/events.ts';
import { LOCK_WAITS_VIEW, openTempPostgres, STORE_KINDS, type TestStore } from '../support/stores.ts';

const PLAIN = { endpoints: [{ method: 'POST', path: '/mcp' }], methods: ['tools/call'] };

describe.each(STORE_KINDS)('server configuration on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function buckets(server: string) {
      const page = await (await get(app, `/api/v1/events?server=${server}`)).json();
      return Object.fromEntries(
        page.events.map((e: { id: string; bucket: string; kind: string }) => [e.id, `${e.bucket}/${e.kind}`]),
      );
    }

    it('moves stored 404s between buckets when the discovery document changes', async () => {
      const undeclared = proxyEvent({ server: 'notes', http: { method: 'POST', path: '/mcp/sse', status: 404 } });
      const declared = proxyEvent({ server: 'notes', http: { method: 'POST', path: '/mcp', status: 404 } });
      await postNdjson(app, [undeclared, declared]);
      expect(await buckets('notes')).toEqual({
        [undeclared.id as string]: 'ambiguous/unclassifiable_no_discovery',
        [declared.id as string]: 'ambiguous/unclassifiable_no_discovery',
      });

      const put = await putJson(app, '/api/v1/servers/notes/discovery', PLAIN);
      expect(put.status).toBe(200);
      expect(await put.json()).toMatchObject({ reclassified: 2, discovery: { format: 'plain' } });
      const after = await buckets('notes');
      expect(after[undeclared.id as string]).toBe('refusal/not_declared');
      expect(after[declared.id as string]).toMatch(/^ambiguous\//);

      // A later document that declares /mcp/sse moves the first one back out of refusal.
      const wider = { endpoints: [...PLAIN.endpoints, { path: '/mcp/sse' }], methods: [] };
      expect(await (await putJson(app, '/api/v1/servers/notes/discovery', wider)).json()).toMatchObject({
        reclassified: 1,
      });
      expect((await buckets('notes'))[undeclared.id as string]).toMatch(/^ambiguous\//);
    });

    it('classifies new events with the stored document', async () => {
      await putJson(app, '/api/v1/servers/notes/discovery', PLAIN);
      const probe = proxyEvent({ server: 'notes', http: { method: 'GET', path: '/mcp/a2a/', status: 404 } });
      await postNdjson(app, [probe]);
      expect((await buckets('notes'))[probe.id as string]).toBe('refusal/not_declared');
    });

    it('accepts an A2A agent card (v0.3 and v1.0) and an MCP server card', async () => {
      const v03 = {
        name: 'a',
        url: 'https://a.example/a2a/v1',
        additionalInterfaces: [{ url: 'https://a.example/a2a/grpc', transport: 'GRPC' }],
      };
      const v10 = { name: 'b', supportedInterfaces: [{ url: 'https://b.example/rpc', protocolBinding: 'JSONRPC' }] };
      const card = { name: 'c', remotes: [{ type: 'streamable-http', url: 'https://c.example/mcp' }] };
      for (const [server, doc, format, path] of [
        ['a', v03, 'a2a-agent-card', '/a2a/grpc'],
        ['b', v10, 'a2a-agent-card', '/rpc'],
        ['c', card, 'mcp-server-card', '/mcp'],
      ] as const) {
        const res = await putJson(app, `/api/v1/servers/${server}/discovery`, doc);
        expect(res.status).toBe(200);
        const body = await (await get(app, `/api/v1/servers/${server}/discovery`)).json();
        expect(body.discovery.format).toBe(format);
        expect(body.discovery.endpoints).toContainEqual({ path });
        expect(body.source).toEqual(doc);
      }
    });

    it('rejects a document of no known shape with a clear 400 and changes nothing', async () => {
      await putJson(app, '/api/v1/servers/notes/discovery', PLAIN);
      const res = await putJson(app, '/api/v1/servers/notes/discovery', { hello: 'world' });
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error).toMatchObject({ code: 'invalid_discovery', retryable: false });
      expect(error.fix).toContain('endpoints');
      const stored = await (await get(app, '/api/v1/servers/notes/discovery')).json();
      expect(stored.discovery.format).toBe('plain');
    });

    it('rejects a body that is not JSON with our 400', async () => {
      const res = await app.request('/api/v1/servers/notes/discovery', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', host: '127.0.0.1' },
        body: '{not json',
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe('invalid_request');
    });

    it('refuses a discovery body over 1 MiB with 413 before reading it', async () => {
      const huge = { endpoints: [{ path: '/mcp' }], padding: 'x'.repeat(1_100_000) };
      const res = await putJson(app, '/api/v1/servers/notes/discovery', huge);
      expect(res.status).toBe(413);
      expect((await res.json()).error).toMatchObject({ code: 'payload_too_large', retryable: false });
    });

    it.each(['discovery', 'overrides'])('answers 404 for the %s of a server nobody has seen', async (what) => {
      const res = await get(app, `/api/v1/servers/nobody/${what}`);
      expect(res.status).toBe(404);
      expect((await res.json()).error).toMatchObject({ code: 'not_found', retryable: false });
      // Once it is seen, the same read answers.
      await postNdjson(app, [clientEvent({ server: 'nobody' })]);
      expect((await get(app, `/api/v1/servers/nobody/${what}`)).status).toBe(200);
    });

    it('applies a per-server code override before the defaults, and reclassifies stored events', async () => {
      // A gateway that uses -32003 for rate limiting: bare -32003 is ambiguous by default.
      const limited = clientEvent({ server: 'gw', response: rpcError(-32003, 'slow down') });
      const elsewhere = clientEvent({ server: 'other', response: rpcError(-32003, 'slow down') });
      await postNdjson(app, [limited, elsewhere]);
      expect((await buckets('gw'))[limited.id as string]).toMatch(/^ambiguous\//);

      const res = await putJson(app, '/api/v1/servers/gw/overrides', {
        overrides: [{ rpcCode: -32003, bucket: 'throttled', kind: 'gateway_rate_limit' }],
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ reclassified: 1 });
      const page = await (await get(app, '/api/v1/events?server=gw')).json();
      expect(page.events[0]).toMatchObject({ bucket: 'throttled', kind: 'gateway_rate_limit', evidence: 'override' });
      expect((await buckets('other'))[elsewhere.id as string]).toMatch(/^ambiguous\//);

      const listed = await (await get(app, '/api/v1/servers/gw/overrides')).json();
      expect(listed.overrides).toEqual([
        { match: { rpcCode: -32003 }, bucket: 'throttled', kind: 'gateway_rate_limit' },
      ]);
    });

    it('rejects an override naming both or neither code, with the field', async () => {
      const res = await putJson(app, '/api/v1/servers/gw/overrides', {
        overrides: [{ rpcCode: -32003, httpStatus: 429, bucket: 'throttled', kind: 'x' }],
      });
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain('exactly one');
      const badBucket = await putJson(app, '/api/v1/servers/gw/overrides', {
        overrides: [{ httpStatus: 429, bucket: 'ok', kind: 'x' }],
      });
      expect((await badBucket.json()).error.field).toBe('overrides.0.bucket');
    });

    it("reads where a server's records came from in the newest SOURCE_SAMPLE records, and says when it cut there", async () => {
      const at = (i: number) => new Date(BASE_TS + i * 1_000).toISOString();
      // The oldest 40 carry no frame; the newest SOURCE_SAMPLE do.
      const old = Array.from({ length: 40 }, (_, i) => proxyEvent({ server: 'sampled', ts: at(i) }));
      const recent = Array.from({ length: SOURCE_SAMPLE }, (_, i) =>
        clientEvent({ server: 'sampled', ts: at(40 + i) }),
      );
      await postNdjson(app, [...old, ...recent]);
      const sources = async (from: number) =>
        (await (await get(app, `/api/v1/servers/sampled?from=${BASE_TS + from * 1_000}&to=${BASE_TS + DAY_MS}`)).json())
          .sources;
      expect(await sources(0)).toMatchObject({
        formats: [{ format: null, records: SOURCE_SAMPLE, withFrames: SOURCE_SAMPLE }],
        records: SOURCE_SAMPLE,
        sampled: true,
      });
      expect(await sources(30 + SOURCE_SAMPLE)).toMatchObject({
        formats: [{ format: null, records: 10, withFrames: 10 }],
        records: 10,
        sampled: false,
      });
    });
  });
});

const postgres = STORE_KINDS.find((kind) => kind.name === 'postgres');

describe.skipIf(postgres?.unavailable !== null)('servers first seen by concurrent batches on postgres', () => {
  it('registers the same new names in any order without a deadlock', async () => {
    const db = await openTempPostgres();
    const other = await openStore(db.config);
    const watcher = new pg.Client({ connectionString: db.config.databaseUrl });
    await watcher.connect();
    try {
      let secondWaits: () => void = () => {};
      const waiting = new Promise<void>((resolve) => {
        secondWaits = resolve;
      });
      // The first batch holds `a`; the second names `b` and `a` and must wait for it. Inserted in the order given,
      // the second would take `b` first, and the first's `b` would then close the circle.
      const first = db.store.transaction(async (tx) => {
        await ensureServers(tx, ['a']);
        await waiting;
        await ensureServers(tx, ['b']);
      });
      const second = new Promise<void>((resolve, reject) => {
        setTimeout(() => other.transaction((tx) => ensureServers(tx, ['b', 'a'])).then(resolve, reject), 50);
      });
      // Released however the watch ends, so that a watch that fails fails the test instead of hanging it.
      await untilOneWaitsForALock(watcher).finally(secondWaits);
      await Promise.all([first, second]);
      const names = await db.store.all<{ name: string }>(sql`SELECT name FROM servers ORDER BY name`);
      expect(names.map((row) => row.name)).toEqual(['a', 'b']);
    } finally {
      await watcher.end();
      await other.close();
      await db.dispose();
    }
  });
});

describe.skipIf(postgres?.unavailable !== null)("a server's configuration held by its batches on postgres", () => {
  it('makes a change wait for the batches that classify by the configuration, and the batches not for each other', async () => {
    const db = await openTempPostgres();
    const other = await openStore(db.config);
    const watcher = new pg.Client({ connectionString: db.config.databaseUrl });
    await watcher.connect();
    try {
      await ensureServers(db.store, ['notes']);
      let batchEnds: () => void = () => {};
      const batchHolds = new Promise<void>((resolve) => {
        batchEnds = resolve;
      });
      const order: string[] = [];
      let secondBatchDone: () => void = () => {};
      const secondBatch = new Promise<void>((resolve) => {
        secondBatchDone = resolve;
      });
      // A batch holds the configuration as an ingest does; a second batch takes it too without waiting.
      const batch = db.store.transaction(async (tx) => {
        await shareServerConfigs(tx, ['notes']);
        await other.transaction((tx2) => shareServerConfigs(tx2, ['notes']));
        order.push('second batch');
        secondBatchDone();
        await batchHolds;
        order.push('batch ends');
      });
      // The change asks once the second batch is through: asked before, it would queue that batch behind it.
      const change = secondBatch.then(() =>
        other.transaction(async (tx) => {
          await lockServerConfig(tx, 'notes');
          order.push('change');
        }),
      );
      await untilOneWaitsForALock(watcher).finally(batchEnds);
      await Promise.all([batch, change]);
      expect(order).toEqual(['second batch', 'batch ends', 'change']);
    } finally {
      await watcher.end();
      await other.close();
      await db.dispose();
    }
  });
});

/**
 * Until a backend of the store's database waits for a lock (on Citus, on a worker: the reference table's rows are
 * there).
 */
async function untilOneWaitsForALock(watcher: pg.Client): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    const { rows } = await watcher.query(
      `SELECT count(*)::int AS n FROM ${LOCK_WAITS_VIEW} WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0].n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the second batch never waited for the first');
}
