/**
 * Every route of the app, held against one table: the one place in the tests that lists the routes. The first test
 * compares the table with what `createApp` registers, so a new route cannot land without an entry here saying who
 * may call it and what body it takes, and then every check below runs on it: no token, a wrong one, the shipper's
 * token, a foreign Origin or Host, an oversized body, and a store that went away.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../db/runner.ts';
import { analysed, createTestApp, postNdjson, TEST_NOW, type TestApp } from '../support/app.ts';
import { BASE_TS, clientEvent } from '../support/events.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

const ADMIN = 'admin-token-0123456789abcdef';
const INGEST = 'ingest-token-fedcba9876543210';
const HOST = '127.0.0.1:7700';
/** --max-body for this app: small, so the oversized bodies of ingest and OTLP stay small too. */
const MAX_BODY = 64 * 1024;
/** api/routes/alerts.ts RULE_BODY_BYTES and api/routes/servers.ts CONFIG_BODY_BYTES. */
const RULE_BODY = 64 * 1024;
const CONFIG_BODY = 1024 * 1024;

const RULE = { name: 'Any refusal', metric: 'refusal_count', critical: 1, windowSeconds: 600 };
const RANGE = `from=${BASE_TS - 3_600_000}&to=${TEST_NOW}`;

/** What the routes' paths are filled in with: things the world built in beforeAll holds. */
interface World {
  server: string;
  eventId: string;
  stormId: string;
  identity: string;
  ruleId: string;
  /** A rule of its own for DELETE, so that no other entry loses the one it reads. */
  doomedRuleId: string;
}

/** Who may call a route: anyone (the health check), the shipper's token too (log ingest), or the admin's alone. */
type Access = 'open' | 'shipper' | 'admin';

interface Entry {
  access: Access;
  /** A concrete path of the route, its parameters filled in, that the admin token's call succeeds on. */
  path: (w: World) => string;
  /** A valid body, and the bytes past which the route refuses a body with 413 (every body is limited). */
  body?: { type: string; data: string; limit: number };
  /** What that call answers. */
  ok: number;
  /** False for a route that reads no store (the API's description and its page): it answers the same without one. */
  store?: false;
}

const json = (value: unknown, limit: number) => ({ type: 'application/json', data: JSON.stringify(value), limit });
const q = encodeURIComponent;

const ROUTES: Record<`${'GET' | 'POST' | 'PUT' | 'DELETE'} /${string}`, Entry> = {
  'GET /api/v1/health': { access: 'open', path: () => '/api/v1/health', ok: 200 },
  'GET /api/v1/openapi.json': { access: 'open', path: () => '/api/v1/openapi.json', ok: 200, store: false },
  'GET /api/docs': { access: 'open', path: () => '/api/docs', ok: 200, store: false },
  'GET /api/docs/swagger-ui-bundle.js': {
    access: 'open',
    path: () => '/api/docs/swagger-ui-bundle.js',
    ok: 200,
    store: false,
  },
  'GET /api/docs/swagger-ui.css': { access: 'open', path: () => '/api/docs/swagger-ui.css', ok: 200, store: false },
  'GET /api/docs/reference.js': { access: 'open', path: () => '/api/docs/reference.js', ok: 200, store: false },
  'POST /api/v1/ingest': {
    access: 'shipper',
    path: () => '/api/v1/ingest',
    body: { type: 'application/x-ndjson', data: JSON.stringify(clientEvent()), limit: MAX_BODY },
    ok: 200,
  },
  'POST /v1/traces': {
    access: 'shipper',
    path: () => '/v1/traces',
    body: json({ resourceSpans: [] }, MAX_BODY),
    ok: 200,
  },
  'GET /api/v1/events': { access: 'admin', path: () => `/api/v1/events?${RANGE}`, ok: 200 },
  'GET /api/v1/events/:id': { access: 'admin', path: (w) => `/api/v1/events/${q(w.eventId)}`, ok: 200 },
  'GET /api/v1/summary': { access: 'admin', path: () => `/api/v1/summary?${RANGE}`, ok: 200 },
  'GET /api/v1/span': { access: 'admin', path: () => '/api/v1/span', ok: 200 },
  'GET /api/v1/servers': { access: 'admin', path: () => `/api/v1/servers?${RANGE}`, ok: 200 },
  'GET /api/v1/servers/:server': { access: 'admin', path: (w) => `/api/v1/servers/${q(w.server)}?${RANGE}`, ok: 200 },
  'GET /api/v1/servers/:server/discovery': {
    access: 'admin',
    path: (w) => `/api/v1/servers/${q(w.server)}/discovery`,
    ok: 200,
  },
  'PUT /api/v1/servers/:server/discovery': {
    access: 'admin',
    path: (w) => `/api/v1/servers/${q(w.server)}/discovery`,
    body: json({ endpoints: [{ method: 'POST', path: '/mcp' }] }, CONFIG_BODY),
    ok: 200,
  },
  'GET /api/v1/servers/:server/overrides': {
    access: 'admin',
    path: (w) => `/api/v1/servers/${q(w.server)}/overrides`,
    ok: 200,
  },
  'PUT /api/v1/servers/:server/overrides': {
    access: 'admin',
    path: (w) => `/api/v1/servers/${q(w.server)}/overrides`,
    body: json({ overrides: [{ rpcCode: -32050, bucket: 'refusal', kind: 'policy_denied' }] }, CONFIG_BODY),
    ok: 200,
  },
  'GET /api/v1/timeseries': { access: 'admin', path: () => `/api/v1/timeseries?${RANGE}`, ok: 200 },
  'GET /api/v1/storms': { access: 'admin', path: () => `/api/v1/storms?${RANGE}`, ok: 200 },
  'GET /api/v1/storms/:id': { access: 'admin', path: (w) => `/api/v1/storms/${q(w.stormId)}`, ok: 200 },
  'GET /api/v1/identities': { access: 'admin', path: () => `/api/v1/identities?${RANGE}`, ok: 200 },
  'GET /api/v1/identities/:identity': {
    access: 'admin',
    path: (w) => `/api/v1/identities/${q(w.identity)}?${RANGE}`,
    ok: 200,
  },
  'GET /api/v1/clients': { access: 'admin', path: () => `/api/v1/clients?${RANGE}`, ok: 200 },
  'GET /api/v1/context-gap': { access: 'admin', path: () => `/api/v1/context-gap?${RANGE}`, ok: 200 },
  'GET /api/v1/denials': { access: 'admin', path: () => `/api/v1/denials?${RANGE}`, ok: 200 },
  'GET /api/v1/actionability': { access: 'admin', path: () => `/api/v1/actionability?${RANGE}`, ok: 200 },
  'GET /api/v1/alerts': { access: 'admin', path: () => '/api/v1/alerts', ok: 200 },
  'GET /api/v1/alerts/history': { access: 'admin', path: () => '/api/v1/alerts/history', ok: 200 },
  'GET /api/v1/alerts/deliveries': { access: 'admin', path: () => '/api/v1/alerts/deliveries', ok: 200 },
  'GET /api/v1/alerts/rules': { access: 'admin', path: () => '/api/v1/alerts/rules', ok: 200 },
  'POST /api/v1/alerts/rules': {
    access: 'admin',
    path: () => '/api/v1/alerts/rules',
    body: json(RULE, RULE_BODY),
    ok: 201,
  },
  'POST /api/v1/alerts/rules/preview': {
    access: 'admin',
    path: () => '/api/v1/alerts/rules/preview',
    body: json({ rule: RULE }, RULE_BODY),
    ok: 200,
  },
  'GET /api/v1/alerts/rules/:id': { access: 'admin', path: (w) => `/api/v1/alerts/rules/${w.ruleId}`, ok: 200 },
  'PUT /api/v1/alerts/rules/:id': {
    access: 'admin',
    path: (w) => `/api/v1/alerts/rules/${w.ruleId}`,
    body: json({ ...RULE, name: 'Any refusal, replaced' }, RULE_BODY),
    ok: 200,
  },
  'DELETE /api/v1/alerts/rules/:id': {
    access: 'admin',
    path: (w) => `/api/v1/alerts/rules/${w.doomedRuleId}`,
    ok: 200,
  },
  'GET /metrics': { access: 'admin', path: () => '/metrics', ok: 200 },
};

const ENTRIES = Object.entries(ROUTES).map(([route, entry]) => ({ route, method: route.split(' ')[0] ?? '', entry }));
const READ_STORE = ENTRIES.filter(({ entry }) => entry.store !== false);
const READ_NO_STORE = ENTRIES.filter(({ entry }) => entry.store === false);

/**
 * The routes `createApp` answers, as method and path pattern. Left out: registrations under `ALL`, which are
 * `app.use` middleware (request id, headers, guard, CORS, rate limits, auth) and answer no request themselves. A
 * middleware registered for one method (the lag check before POST /api/v1/ingest and /v1/traces) shares its route's
 * method and path, so it adds no row. The dashboard's static files and the SPA fallback are no part of `createApp`:
 * `startServer` adds them when dist/web exists, and they serve the public page, never data.
 */
function appRoutes(app: TestApp): string[] {
  const routes = app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`);
  return [...new Set(routes)].sort();
}

function call(
  app: TestApp,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: { type: string; data: string },
) {
  return app.request(path, {
    method,
    headers: { host: HOST, ...(body === undefined ? {} : { 'content-type': body.type }), ...headers },
    ...(body === undefined ? {} : { body: body.data }),
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Our error body, and nothing else: `{"error":{"code","message","retryable",...}}`; none of `unechoed` in it. */
async function expectError(res: Response, status: number, code: string, unechoed: readonly string[] = []) {
  const text = await res.text();
  expect({ status: res.status, text: res.status === status ? '' : text }).toEqual({ status, text: '' });
  const body = JSON.parse(text);
  expect(body).toEqual({
    error: expect.objectContaining({ code, message: expect.any(String), retryable: expect.any(Boolean) }),
  });
  for (const secret of unechoed) expect(text).not.toContain(secret);
  return body.error;
}

describe('every route of the app, per concern', () => {
  let db: TestStore;
  let app: TestApp;
  const world = {} as World;

  beforeAll(async () => {
    db = await openTempSqlite();
    app = createTestApp(db.store, {
      token: ADMIN,
      ingestToken: INGEST,
      maxBodyBytes: MAX_BODY,
      rateLimits: { ingest: { burst: 10_000, perSecond: 1000 }, reads: { burst: 10_000, perSecond: 1000 } },
    });
    const admin = bearer(ADMIN);
    // A retry storm: the same call refused with 503 six times a second apart, and an identity re-sent with it.
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { q: 'y' } } };
    const retries = Array.from({ length: 6 }, (_, i) =>
      clientEvent({
        ts: new Date(BASE_TS + i * 1000).toISOString(),
        request,
        response: undefined,
        http: { method: 'POST', path: '/mcp', status: 503 },
      }),
    );
    expect((await postNdjson(app, retries, admin)).status).toBe(200);
    await analysed(app);
    const read = async (path: string) => {
      const res = await call(app, 'GET', path, admin);
      expect(res.status, path).toBe(200);
      return res.json();
    };
    world.server = 'release-notes';
    world.eventId = String(retries[0]?.id);
    const { storms } = await read(`/api/v1/storms?${RANGE}`);
    world.stormId = storms[0]?.id;
    const { identities } = await read(`/api/v1/identities?${RANGE}`);
    world.identity = identities[0]?.identity;
    for (const key of ['ruleId', 'doomedRuleId'] as const) {
      const created = await call(app, 'POST', '/api/v1/alerts/rules', admin, json(RULE, RULE_BODY));
      expect(created.status).toBe(201);
      world[key] = (await created.json()).rule.id;
    }
    expect(world).toEqual({
      server: expect.any(String),
      eventId: expect.any(String),
      stormId: expect.any(String),
      identity: expect.any(String),
      ruleId: expect.any(String),
      doomedRuleId: expect.any(String),
    });
  });
  afterAll(async () => db.dispose());

  it('has one entry per route the app answers: none missing, none stale', () => {
    const missingOrStale = 'a - line is a route without an entry here, a + line an entry for no route';
    expect(Object.keys(ROUTES).sort(), missingOrStale).toEqual(appRoutes(app));
  });

  describe.each(ENTRIES)('$route', ({ method, entry }) => {
    const send = (headers: Record<string, string>, body: { type: string; data: string } | undefined = entry.body) =>
      call(app, method, entry.path(world), headers, body);

    it(`answers the admin token: the table's call reaches the route`, async () => {
      const res = await send(bearer(ADMIN));
      const text = await res.text();
      expect({ status: res.status, text: res.status === entry.ok ? '' : text }).toEqual({ status: entry.ok, text: '' });
    });

    if (entry.access === 'open') {
      it('is open on purpose: it answers without a token, with a wrong one and with the shipper one', async () => {
        for (const headers of [{}, bearer('wrong'), bearer(INGEST)]) {
          expect((await send(headers)).status).toBe(entry.ok);
        }
      });
    } else {
      it('refuses no token, and a wrong one, with 401 unauthenticated', async () => {
        await expectError(await send({}), 401, 'unauthenticated');
        for (const wrong of ['wrong', `${ADMIN}x`, ADMIN.slice(0, -1), `${INGEST}x`, INGEST.slice(0, -1)]) {
          await expectError(await send(bearer(wrong)), 401, 'unauthenticated', [wrong]);
        }
      });
    }

    if (entry.access === 'admin') {
      it('refuses the ingest token with 403 forbidden', async () => {
        const error = await expectError(await send(bearer(INGEST)), 403, 'forbidden', [INGEST]);
        expect(error.message).toContain('ingest');
        expect(error.fix).toContain('LENS_TOKEN');
      });
    } else if (entry.access === 'shipper') {
      it('takes the ingest token: a log shipper sends here', async () => {
        expect((await send(bearer(INGEST))).status).toBe(entry.ok);
      });
    }

    it('refuses a foreign Origin with 403, without echoing it', async () => {
      const origin = 'https://evil.example/<script>alert(1)</script>';
      await expectError(await send({ ...bearer(ADMIN), origin }), 403, 'foreign_origin', ['evil.example', '<script>']);
    });

    it('refuses a foreign Host (DNS rebinding) with 403, without echoing it', async () => {
      const host = 'rebind.attacker.example:7700';
      await expectError(await send({ ...bearer(ADMIN), host }), 403, 'foreign_origin', ['attacker']);
    });

    const body = entry.body;
    if (body !== undefined) {
      it(`refuses a body of ${body.limit + 1} bytes with 413, and takes one of ${body.limit}`, async () => {
        const over = { type: body.type, data: ' '.repeat(body.limit + 1) };
        await expectError(await send(bearer(ADMIN), over), 413, 'payload_too_large');
        const atLimit = await send(bearer(ADMIN), { type: body.type, data: ' '.repeat(body.limit) });
        expect(atLimit.status).not.toBe(413);
      });
    }
  });
});

describe('every route on a store that went away', () => {
  const lost = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const gone: Store = {
    dialect: 'postgres',
    description: 'a database that refuses connections',
    all: () => Promise.reject(lost),
    run: () => Promise.reject(lost),
    transaction: () => Promise.reject(lost),
    close: async () => undefined,
  };
  const app = createTestApp(gone);
  const world: World = {
    server: 'release-notes',
    eventId: 'e-1',
    stormId: 's-1',
    identity: 'i-1',
    ruleId: 'r-1',
    doomedRuleId: 'r-2',
  };

  // The app logs each store failure in one line, for the operator; here those lines are the expected outcome.
  beforeAll(() => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });

  it.each(READ_STORE)('$route answers 503 store_unavailable with Retry-After', async ({ method, entry }) => {
    const res = await call(app, method, entry.path(world), {}, entry.body);
    const error = await expectError(res, 503, 'store_unavailable');
    expect(error.retryable).toBe(true);
    expect(Number(res.headers.get('retry-after'))).toBe(error.retryAfterSeconds);
  });

  it.each(READ_NO_STORE)('$route reads no store: it answers as ever', async ({ method, entry }) => {
    expect((await call(app, method, entry.path(world), {}, entry.body)).status).toBe(entry.ok);
  });
});
