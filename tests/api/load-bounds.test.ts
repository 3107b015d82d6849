import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BATCH_LINES } from '../../api/ingest-body.ts';
import { type RunningServer, startServer } from '../../api/server.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

describe('load is bounded', () => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTempSqlite();
  });
  afterAll(async () => db.dispose());

  const tight = () =>
    createTestApp(db.store, {
      rateLimits: { ingest: { burst: 2, perSecond: 0.001 }, reads: { burst: 3, perSecond: 0.001 } },
    });

  it('answers 429 with Retry-After and our body once a caller has spent its ingest bucket', async () => {
    const app = tight();
    expect((await postNdjson(app, [clientEvent()])).status).toBe(200);
    expect((await postNdjson(app, [clientEvent()])).status).toBe(200);
    const refused = await postNdjson(app, [clientEvent()]);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(1);
    expect((await refused.json()).error).toMatchObject({ code: 'rate_limited', retryable: true });
    // Reads have their own bucket, and another caller its own.
    expect((await get(app, '/api/v1/summary')).status).toBe(200);
    const other = await postNdjson(app, [clientEvent()], { authorization: 'Bearer someone-else' });
    expect(other.status).not.toBe(429);
  });

  it('limits reads per caller too', async () => {
    const app = tight();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await get(app, '/api/v1/summary')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it('refuses a batch of more lines than MAX_BATCH_LINES before splitting it, gzip or not', async () => {
    const app: TestApp = createTestApp(db.store);
    const body = '{}\n'.repeat(1_000_000);
    for (const [headers, payload] of [
      [{}, body],
      [{ 'content-encoding': 'gzip' }, gzipSync(body)],
    ] as const) {
      const res = await app.request('/api/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1', ...headers },
        body: payload,
      });
      expect(res.status).toBe(413);
      expect((await res.json()).error.fix).toContain(`at most ${MAX_BATCH_LINES} lines`);
    }
    const array = await app.request('/api/v1/ingest', {
      method: 'POST',
      headers: { 'content-type': 'application/json', host: '127.0.0.1' },
      body: JSON.stringify(Array.from({ length: MAX_BATCH_LINES + 1 }, () => ({}))),
    });
    expect(array.status).toBe(413);
  });

  it('sends CORS headers for the origins --allow-origin names, preflight included', async () => {
    const app = createTestApp(db.store, { allowedOrigins: ['https://ops.example'] });
    const preflight = await app.request('/api/v1/ingest', {
      method: 'OPTIONS',
      headers: {
        host: '127.0.0.1',
        origin: 'https://ops.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://ops.example');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const read = await get(app, '/api/v1/summary', { origin: 'https://ops.example' });
    expect(read.headers.get('access-control-allow-origin')).toBe('https://ops.example');
    const foreign = await get(app, '/api/v1/summary', { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    // Without --allow-origin nothing is allowed across origins.
    const closed = await createTestApp(db.store).request('/api/v1/summary', {
      method: 'OPTIONS',
      headers: { host: '127.0.0.1', origin: 'https://ops.example', 'access-control-request-method': 'GET' },
    });
    expect(closed.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('sends a strict Content-Security-Policy', async () => {
    const res = await get(createTestApp(db.store), '/api/v1/health');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
  });
});

describe('slow connections are closed, not held', () => {
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lens-slow-'));
    server = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, headersTimeoutMs: 500, idleTimeoutMs: 700 });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('closes a connection that never finishes its headers', async () => {
    const { port } = new URL(server.url);
    const started = performance.now();
    const closedAfter = await new Promise<number>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
      );
      socket.on('close', () => resolve(performance.now() - started));
      socket.on('error', () => undefined);
      setTimeout(() => reject(new Error('the server held the half-open connection for 10 s')), 10_000).unref();
    });
    expect(closedAfter).toBeLessThan(10_000);
  });

  it('still answers a caller that sends its request whole', async () => {
    expect((await fetch(`${server.url}/api/v1/health`)).status).toBe(200);
  });
});
