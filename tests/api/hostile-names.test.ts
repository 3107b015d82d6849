import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateDue } from '../../api/services/alerts/engine.ts';
import { createTestApp, get, postJson, postNdjson, putJson, TEST_NOW, type TestApp } from '../support/app.ts';
import { lens } from '../support/cli.ts';
import { clientEvent, proxyEvent, rpcError } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * Names taken from logs are data. Each of these is a member (or, for `__proto__`, the setter) of every plain
 * object's prototype: as a key of `{}` it reads back a function, or replaces the prototype, instead of a value.
 * Every name field of the traffic below is one of them, and every GET route must still answer with JSON.
 */
const HOSTILE = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf'] as const;
/** The hostile names an override's kind accepts (a short snake_case name); the others are refused with a 400. */
const HOSTILE_KINDS = ['constructor', 'prototype'] as const;

/** All traffic lies within the 32 minutes after T0, before the clock's now and inside an hour's window. */
const T0 = TEST_NOW - 50 * 60_000;
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** A tools/call of the tool `name`, with a member `name` in its arguments (own, even for `__proto__`). */
function call(name: string, extra: Record<string, unknown> = {}) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: { [name]: name, ...extra } },
  };
}

/** Error data whose reason, slug and one member are all `name`. */
const hostileData = (name: string) => ({ reason: name, error: name, [name]: name });

/**
 * The traffic of client `name` to server `name` in session `name`: failures of every bucket, so the gate's four
 * reasons and four blocks, both storm kinds, the identity alarm and the context gap all see the name.
 */
function trafficBefore(name: string): Record<string, unknown>[] {
  const own = { client: name, server: name, session: name };
  const events: Record<string, unknown>[] = [];
  const push = (seconds: number, fields: Record<string, unknown>) =>
    events.push(clientEvent({ ...own, ts: at(seconds), ...fields }));
  // 41 identical sends within 10 minutes: over the re-presentation alarm. The first has the name as its id.
  for (let i = 0; i < 41; i++) push(i * 10, { ...(i === 0 ? { id: name } : {}), request: call(name) });
  // Undeclared paths, refused: endpoint blocks and a probe storm, without having read the discovery document.
  const paths = [`/${name}/a`, `/${name}/b`, name];
  for (let i = 0; i < 12; i++) {
    push(500 + i, {
      http: { method: 'POST', path: paths[i % 3], status: 404 },
      request: undefined,
      response: undefined,
      discoveryRead: false,
    });
  }
  // The JSON-RPC method `name`, not found: a method block.
  const method = { jsonrpc: '2.0', id: 1, method: name, params: { [name]: name } };
  for (let i = 0; i < 3; i++) push(600 + i, { request: method, response: rpcError(-32601, name, hostileData(name)) });
  // A 404 on the declared endpoint in session `name`: the session is gone (a session block).
  for (let i = 0; i < 2; i++) {
    push(700 + i, { http: { method: 'POST', path: '/mcp', status: 404 }, request: call(name, { s: 1 }) });
  }
  // Throttled, then sent again before Retry-After.
  for (let i = 0; i < 3; i++) {
    push(800 + i, {
      http: { method: 'POST', path: '/mcp', status: 429, retryAfter: 60 },
      request: call(name, { t: 1 }),
      response: undefined,
    });
  }
  // Transient six times over: past the retry budget, and a retry loop.
  for (let i = 0; i < 6; i++) {
    push(900 + i, {
      http: { method: 'POST', path: '/mcp', status: 503 },
      request: call(name, { u: 1 }),
      response: undefined,
    });
  }
  // An ambiguous tool error, repeated unchanged.
  const toolError = { jsonrpc: '2.0', id: 1, result: { isError: true, content: [{ type: 'text', text: name }] } };
  for (let i = 0; i < 2; i++) push(1000 + i, { request: call(name, { a: 1 }), response: toolError });
  // Codes the overrides re-map to the hostile kinds (ambiguous until then).
  for (const [offset, code] of [
    [1100, -32050],
    [1300, -32051],
    [1400, -32052],
  ] as const) {
    for (let i = 0; i < 2; i++) {
      push(offset + i, { request: call(name, { c: code }), response: rpcError(code, name, hostileData(name)) });
    }
  }
  for (let i = 0; i < 2; i++) {
    push(1200 + i, {
      http: { method: 'POST', path: '/mcp', status: 418 },
      request: call(name, { c: 418 }),
      response: undefined,
    });
  }
  // Sampling trimmed for the reason `name`: the context gap.
  for (let i = 0; i < 2; i++) {
    push(1500 + i, {
      request: {
        jsonrpc: '2.0',
        id: 1,
        method: 'sampling/createMessage',
        params: { includeContext: 'allServers', maxTokens: 10, messages: [{ role: 'user', content: { text: name } }] },
      },
      response: {
        jsonrpc: '2.0',
        id: 1,
        result: { role: 'assistant', model: name, _meta: { context: { applied: 'none', reason: name } } },
      },
    });
  }
  // The HTTP method `name`: on a declared endpoint, then refused with a 405 (an endpoint block).
  push(1600, { http: { method: name, path: `/${name}`, status: 200 }, request: undefined, response: undefined });
  for (let i = 0; i < 2; i++) {
    push(1601 + i, { http: { method: name, path: name, status: 405 }, request: undefined, response: undefined });
  }
  // Invalid params, refused twice (the decision store replays it), then answered on a new session: a denial that
  // did not hold.
  for (let i = 0; i < 2; i++) push(1650 + i, { request: call(name, { d: 1 }), response: rpcError(-32602, name) });
  push(1660, { session: `${name}-again`, request: call(name, { d: 1 }) });
  // A proxy's line without a client.
  events.push(proxyEvent({ server: name, ts: at(1700), http: { method: name, path: name, status: 404 } }));
  return events;
}

/** After the overrides: the re-mapped refusal sent again (avoidable), and one more re-mapped transient. */
function trafficAfter(name: string): Record<string, unknown>[] {
  const own = { client: name, server: name, session: name };
  return [
    ...[0, 1].map((i) =>
      clientEvent({
        ...own,
        ts: at(1800 + i),
        request: call(name, { c: -32050 }),
        response: rpcError(-32050, name, hostileData(name)),
      }),
    ),
    clientEvent({
      ...own,
      ts: at(1900),
      http: { method: 'POST', path: '/mcp', status: 418 },
      request: call(name, { c: 418 }),
      response: undefined,
    }),
  ];
}

const SENT_TO_SERVER = trafficBefore('x').length + trafficAfter('x').length;
/** Events that name the client: all but the proxy line. */
const LOGGED_BY_CLIENT = SENT_TO_SERVER - 1;
/** Requests the client sent: the two sampling requests are the server's sends, and the proxy line names no one. */
const SENT_BY_CLIENT = SENT_TO_SERVER - 3;

const OVERRIDES = {
  overrides: [
    { rpcCode: -32050, bucket: 'refusal', kind: 'constructor' },
    { httpStatus: 418, bucket: 'transient', kind: 'prototype' },
    { rpcCode: -32051, bucket: 'throttled', kind: 'constructor' },
    { rpcCode: -32052, bucket: 'ambiguous', kind: 'prototype' },
  ],
};

/** The discovery document of server `name`: an endpoint and a method named `name`, and a member `name`. */
function discoveryOf(name: string) {
  return {
    endpoints: [
      { method: 'POST', path: '/mcp' },
      { method: name, path: `/${name}` },
    ],
    methods: ['tools/call', name],
    [name]: { [name]: name },
  };
}

const q = encodeURIComponent;

// biome-ignore lint/suspicious/noExplicitAny: API bodies are read as JSON and checked member by member.
type Json = any;

/** GETs `path`, expects `status` and a JSON body, and returns the body. */
async function read(app: TestApp, path: string, status = 200): Promise<Json> {
  const res = await get(app, path);
  const text = await res.text();
  expect({ path, status: res.status, text: res.status === status ? '' : text }).toEqual({ path, status, text: '' });
  expect(res.headers.get('content-type') ?? '', path).toMatch(/^application\/json/);
  return JSON.parse(text);
}

async function notFound(app: TestApp, path: string): Promise<void> {
  const body = await read(app, path, 404);
  expect(body.error?.code, path).toBe('not_found');
}

describe.each(STORE_KINDS)('names from logs that are Object.prototype members, on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    /** Every GET route pattern a test below read. */
    const covered = new Set<string>();
    const hit = (pattern: string) => covered.add(`/api/v1${pattern}`);

    beforeAll(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
      for (const name of HOSTILE) {
        const res = await putJson(app, `/api/v1/servers/${q(name)}/discovery`, discoveryOf(name));
        expect(res.status, name).toBe(200);
      }
      const before = HOSTILE.flatMap(trafficBefore);
      const ingested = await postNdjson(app, before);
      expect(ingested.status).toBe(200);
      expect(await ingested.json()).toMatchObject({ accepted: before.length, rejectedTotal: 0 });
      for (const name of HOSTILE) {
        const res = await putJson(app, `/api/v1/servers/${q(name)}/overrides`, OVERRIDES);
        expect(res.status, name).toBe(200);
        expect((await res.json()).reclassified, name).toBeGreaterThan(0);
      }
      const after = HOSTILE.flatMap(trafficAfter);
      expect(await (await postNdjson(app, after)).json()).toMatchObject({ accepted: after.length });
      for (const name of HOSTILE) {
        for (const [metric, groupBy] of [
          ['refusal_count', 'client'],
          ['avoidable_count', 'server'],
          ['identity_representations', 'identity'],
          ['context_trim_rate', 'server'],
          ['probe_storm_size', 'client'],
        ] as const) {
          const res = await postJson(app, '/api/v1/alerts/rules', {
            name,
            metric,
            scope: { server: name, client: name },
            groupBy,
            critical: metric === 'context_trim_rate' ? 0.5 : 1,
            windowSeconds: 3600,
          });
          expect(res.status, `${name} ${metric}`).toBe(201);
        }
      }
      await evaluateDue(db.store, TEST_NOW, () => undefined);
    });
    afterAll(async () => db.dispose());

    it('refuses an override kind that is not a snake_case name with a 400, as for any other name', async () => {
      for (const name of HOSTILE.filter((n) => !(HOSTILE_KINDS as readonly string[]).includes(n))) {
        const res = await putJson(app, `/api/v1/servers/${q(name)}/overrides`, {
          overrides: [{ rpcCode: -32050, bucket: 'refusal', kind: name }],
        });
        expect(res.status, name).toBe(400);
        expect((await res.json()).error.code).toBe('invalid_request');
      }
    });

    it('/summary counts each hostile server and client as an ordinary key', async () => {
      hit('/summary');
      for (const name of HOSTILE) {
        const narrowed = await read(app, `/api/v1/summary?server=${q(name)}&client=${q(name)}`);
        expect(Object.keys(narrowed.servers), name).toEqual([name]);
        expect(Object.keys(narrowed.clients), name).toEqual([name]);
        expect(narrowed.servers[name].total, name).toBe(SENT_BY_CLIENT);
      }
      const summary = await read(app, '/api/v1/summary');
      expect(Object.keys(summary.servers).sort()).toEqual([...HOSTILE].sort());
      expect(Object.keys(summary.clients).sort()).toEqual([...HOSTILE].sort());
      expect(summary.overall.total).toBe(HOSTILE.length * SENT_TO_SERVER);
      for (const name of HOSTILE) {
        expect(Object.hasOwn(summary.servers, name), name).toBe(true);
        expect(Object.hasOwn(summary.clients, name), name).toBe(true);
        const server = summary.servers[name];
        expect(server.total, name).toBe(SENT_TO_SERVER);
        expect(summary.clients[name].total, name).toBe(SENT_BY_CLIENT);
        for (const [bucket, hostileKind, count] of [
          ['refusal', 'constructor', 4],
          ['transient', 'prototype', 3],
          ['throttled', 'constructor', 2],
          ['ambiguous', 'prototype', 2],
        ] as const) {
          expect(Object.hasOwn(server.kinds[bucket], hostileKind), `${name} ${bucket}`).toBe(true);
          expect(server.kinds[bucket][hostileKind], `${name} ${bucket}`).toBe(count);
        }
        // A kind nobody logged is absent, not inherited.
        expect(Object.hasOwn(server.kinds.refusal, 'toString')).toBe(false);
      }
    });

    it('/servers, /servers/:server and its discovery and overrides keep the names as data', async () => {
      hit('/servers');
      hit('/servers/:server');
      hit('/servers/:server/discovery');
      hit('/servers/:server/overrides');
      const list = await read(app, '/api/v1/servers');
      expect(list.servers.map((s: Json) => s.server).sort()).toEqual([...HOSTILE].sort());
      for (const name of HOSTILE) {
        const row = list.servers.find((s: Json) => s.server === name);
        expect(row.requests, name).toBe(SENT_TO_SERVER);
        expect(row.hasDiscovery, name).toBe(true);
        const filtered = await read(app, `/api/v1/servers?server=${q(name)}&client=${q(name)}`);
        expect(filtered.servers.map((s: Json) => s.server)).toEqual([name]);

        const detail = await read(app, `/api/v1/servers/${q(name)}`);
        expect(detail.server).toBe(name);
        expect(detail.counts.total).toBe(SENT_TO_SERVER);
        expect(Object.keys(detail.clients)).toEqual([name]);
        expect(detail.clients[name].total).toBe(SENT_BY_CLIENT);
        expect(Object.hasOwn(detail.counts.kinds.refusal, 'constructor')).toBe(true);
        expect(detail.contextGap.server).toBe(name);
        expect(Object.hasOwn(detail.contextGap.reasons, name)).toBe(true);
        expect(detail.contextGap.reasons[name]).toBe(2);
        expect(detail.storms.length).toBeGreaterThan(0);
        expect(detail.identities.length).toBeGreaterThan(0);
        expect(Object.hasOwn(detail.discoverySource, name)).toBe(true);
        expect(detail.discovery.methods).toEqual(['tools/call', name]);
        expect(detail.overrides).toHaveLength(OVERRIDES.overrides.length);

        const discovery = await read(app, `/api/v1/servers/${q(name)}/discovery`);
        expect(discovery.server).toBe(name);
        expect(Object.hasOwn(discovery.source, name)).toBe(true);
        expect(Object.hasOwn(discovery.source[name], name)).toBe(true);
        const overrides = await read(app, `/api/v1/servers/${q(name)}/overrides`);
        expect(overrides.overrides.map((o: Json) => o.kind)).toEqual(OVERRIDES.overrides.map((o) => o.kind));
      }
      await notFound(app, `/api/v1/servers/${q('no-such-server')}`);
    });

    it('/events and /events/:id list the hostile names, and the gate judged every bucket', async () => {
      hit('/events');
      hit('/events/:id');
      const all = await read(app, '/api/v1/events?limit=1000');
      expect(all.events).toHaveLength(HOSTILE.length * SENT_TO_SERVER);
      for (const name of HOSTILE) {
        const page = await read(app, `/api/v1/events?limit=1000&server=${q(name)}&client=${q(name)}`);
        expect(page.events.length, name).toBe(LOGGED_BY_CLIENT);
        const reasons = new Set(page.events.map((e: Json) => e.gateReason));
        for (const reason of ['after_refusal', 'before_retry_after', 'past_transient_budget']) {
          expect(reasons, `${name} ${reason}`).toContain(reason);
        }
        expect(reasons).toContain('identical_after_ambiguous');
        const blocks = new Set(page.events.map((e: Json) => e.blockedBy));
        for (const block of ['endpoint', 'method', 'session', 'key'])
          expect(blocks, `${name} ${block}`).toContain(block);
        // HTTP methods are stored upper-cased, as the gate compares them.
        const hostileMethod = page.events.filter((e: Json) => e.http.method === name.toUpperCase());
        expect(hostileMethod.map((e: Json) => e.http.path).sort()).toEqual([`/${name}`, name, name].sort());
        expect(page.events.every((e: Json) => e.server === name && e.client === name)).toBe(true);
        expect(new Set(page.events.map((e: Json) => e.session))).toEqual(new Set([name, `${name}-again`]));
        expect(page.events.some((e: Json) => e.method === name)).toBe(true);

        const event = await read(app, `/api/v1/events/${q(name)}`);
        expect(event).toMatchObject({ id: name, server: name, client: name, session: name });
        expect(Object.hasOwn(event.request.params.arguments, name)).toBe(true);
        await notFound(app, `/api/v1/events/${q(`${name}-missing`)}`);
      }
      for (const hostileKind of HOSTILE_KINDS) {
        const page = await read(app, `/api/v1/events?limit=1000&kind=${hostileKind}`);
        expect(page.events.length).toBeGreaterThan(0);
        expect(page.events.every((e: Json) => e.kind === hostileKind)).toBe(true);
      }
      for (const name of HOSTILE) await read(app, `/api/v1/events?kind=${q(name)}&bucket=refusal`);
    });

    it('/clients lists each hostile client and the server it hurts', async () => {
      hit('/clients');
      const { clients } = await read(app, '/api/v1/clients');
      expect(clients.map((c: Json) => c.client).sort()).toEqual([...HOSTILE].sort());
      for (const name of HOSTILE) {
        const client = clients.find((c: Json) => c.client === name);
        expect(client.requests, name).toBe(SENT_BY_CLIENT);
        expect(client.retriedAfterRefusal, name).toBeGreaterThan(0);
        expect(client.probedWithoutDiscovery, name).toBe(12);
        expect(client.hurtsMost.map((h: Json) => h.server)).toEqual([name]);
        await read(app, `/api/v1/clients?server=${q(name)}&client=${q(name)}`);
      }
    });

    it('/storms and /storms/:id show both kinds of storm for each hostile partition', async () => {
      hit('/storms');
      hit('/storms/:id');
      const { storms } = await read(app, '/api/v1/storms?limit=1000');
      for (const name of HOSTILE) {
        const own = storms.filter((s: Json) => s.server === name && s.client === name);
        expect(new Set(own.map((s: Json) => s.kind)), name).toEqual(new Set(['retry_loop', 'probe_storm']));
        await read(app, `/api/v1/storms?server=${q(name)}&client=${q(name)}&sort=newest`);
        await notFound(app, `/api/v1/storms/${q(name)}`);
      }
      for (const storm of storms) {
        const detail = await read(app, `/api/v1/storms/${q(storm.id)}`);
        expect(detail.server).toBe(storm.server);
      }
    });

    it('/identities and /identities/:identity find the alarmed identities of each hostile server', async () => {
      hit('/identities');
      hit('/identities/:identity');
      const { identities } = await read(app, '/api/v1/identities?limit=50');
      const alarmed = await read(app, '/api/v1/identities?only=alarmed&limit=50');
      for (const name of HOSTILE) {
        expect(
          identities.some((i: Json) => i.server === name && i.represented >= 40),
          name,
        ).toBe(true);
        expect(
          alarmed.identities.some((i: Json) => i.server === name),
          name,
        ).toBe(true);
        await read(app, `/api/v1/identities?server=${q(name)}&client=${q(name)}`);
        await notFound(app, `/api/v1/identities/${q(name)}`);
      }
      for (const { identity } of identities) {
        expect((await read(app, `/api/v1/identities/${q(identity)}`)).identity).toBe(identity);
      }
    });

    it('/context-gap counts the hostile reasons as ordinary keys', async () => {
      hit('/context-gap');
      const { servers } = await read(app, '/api/v1/context-gap');
      expect(servers.map((s: Json) => s.server).sort()).toEqual([...HOSTILE].sort());
      for (const gap of servers) {
        expect(Object.keys(gap.reasons)).toEqual([gap.server]);
        expect(gap.reasons[gap.server]).toBe(2);
        expect(gap.trimmed).toBe(2);
        await read(app, `/api/v1/context-gap?server=${q(gap.server)}`);
      }
    });

    it('/actionability ranks the hostile servers as ordinary names', async () => {
      hit('/actionability');
      const answer = await read(app, '/api/v1/actionability');
      const failing = answer.servers.map((s: Json) => s.server);
      expect(failing.length).toBeGreaterThan(0);
      for (const server of answer.servers) {
        expect(HOSTILE).toContain(server.server);
        expect(server.control.failures).toBeGreaterThan(0);
        const one = await read(app, `/api/v1/actionability?server=${q(server.server)}`);
        expect(one.servers.map((s: Json) => s.server)).toEqual([server.server]);
      }
    });

    it('/denials counts the denials not held of each hostile name as numbers, keyed by the names', async () => {
      hit('/denials');
      const answer = await read(app, '/api/v1/denials');
      expect(answer.total).toBe(HOSTILE.length);
      expect(Object.keys(answer.byServer).sort()).toEqual([...HOSTILE].sort());
      expect(Object.keys(answer.byClient).sort()).toEqual([...HOSTILE].sort());
      expect(answer.representedRefusals.map((r: Json) => r.client).sort()).toEqual([...HOSTILE].sort());
      for (const name of HOSTILE) {
        expect(answer.byServer[name], name).toBe(1);
        expect(answer.byClient[name], name).toBe(1);
        const represented = answer.representedRefusals.find((r: Json) => r.client === name);
        expect(represented, name).toEqual({ client: name, replayed: expect.any(Number), evaluatedAfresh: 1 });
        expect(represented.replayed, name).toBeGreaterThan(0);
        for (const narrowing of [`client=${q(name)}`, `server=${q(name)}`, `server=${q(name)}&client=${q(name)}`]) {
          const one = await read(app, `/api/v1/denials?${narrowing}`);
          expect(one.total, narrowing).toBe(1);
          expect(one.items, narrowing).toHaveLength(1);
          expect(one.items[0], narrowing).toMatchObject({ server: name, client: name, newSession: true });
          expect(one.byClient, narrowing).toEqual({ [name]: 1 });
          expect(
            one.representedRefusals.map((r: Json) => r.client),
            narrowing,
          ).toEqual([name]);
        }
      }
    });

    it('/timeseries, /span and /health answer', async () => {
      hit('/timeseries');
      hit('/span');
      hit('/health');
      // Where the stored events are: every hostile name's events are in it.
      const span = await read(app, '/api/v1/span');
      expect(Date.parse(span.first)).toBeLessThanOrEqual(Date.parse(span.last));
      const series = await read(app, '/api/v1/timeseries');
      const total = series.points.reduce((sum: number, p: Json) => sum + p.requests, 0);
      expect(total).toBe(HOSTILE.length * SENT_TO_SERVER);
      for (const name of HOSTILE) await read(app, `/api/v1/timeseries?server=${q(name)}&client=${q(name)}`);
      expect(await read(app, '/api/v1/health')).toMatchObject({ status: 'ok' });
    });

    it("the alert routes read rules, alerts, history and deliveries of the names' rules", async () => {
      for (const route of ['/alerts', '/alerts/history', '/alerts/deliveries', '/alerts/rules', '/alerts/rules/:id']) {
        hit(route);
      }
      const { rules } = await read(app, '/api/v1/alerts/rules');
      expect(rules.length).toBeGreaterThanOrEqual(HOSTILE.length * 5);
      for (const rule of rules) expect((await read(app, `/api/v1/alerts/rules/${q(rule.id)}`)).rule.id).toBe(rule.id);
      const { alerts } = await read(app, '/api/v1/alerts?resolved=1');
      expect(alerts.length).toBeGreaterThan(0);
      for (const name of HOSTILE) {
        await read(app, `/api/v1/alerts?server=${q(name)}`);
        await read(app, `/api/v1/alerts/history?server=${q(name)}&rule=${q(name)}`);
        await read(app, `/api/v1/alerts/deliveries?rule=${q(name)}`);
        await notFound(app, `/api/v1/alerts/rules/${q(name)}`);
        const preview = await postJson(app, '/api/v1/alerts/rules/preview', {
          rule: { name, metric: 'refusal_count', scope: { server: name }, groupBy: 'client', critical: 1 },
          from: T0,
          to: TEST_NOW,
        });
        expect(preview.status, name).toBe(200);
      }
      await read(app, '/api/v1/alerts/history');
      await read(app, '/api/v1/alerts/deliveries');
    });

    it('the API description and its page take no names, and reflect none of those stored', async () => {
      hit('/openapi.json');
      const described = JSON.stringify(await read(app, '/api/v1/openapi.json'));
      for (const name of HOSTILE) expect(described).not.toContain(`"${name}"`);
      for (const file of ['', '/reference.js', '/swagger-ui.css', '/swagger-ui-bundle.js']) {
        expect((await get(app, `/api/docs${file}`)).status, file).toBe(200);
        covered.add(`/api/docs${file}`);
      }
    });

    it('/metrics labels each name as a value of its own', async () => {
      const res = await get(app, '/metrics');
      expect(res.status).toBe(200);
      covered.add('/metrics');
      const text = await res.text();
      for (const name of HOSTILE) {
        expect(text, name).toMatch(new RegExp(`^lens_requests_counted_total\\{server="${name}",.*\\} [1-9]`, 'm'));
      }
    });

    it('has read every GET route of the app, and answers after all that as after a restart', async () => {
      const routes = new Set(app.routes.filter((r) => r.method === 'GET').map((r) => r.path));
      expect([...covered].sort()).toEqual([...routes].sort());
      expect(await read(app, '/api/v1/health')).toMatchObject({ status: 'ok' });
      const restarted = createTestApp(db.store);
      expect(await read(restarted, '/api/v1/health')).toMatchObject({ status: 'ok' });
      expect(Object.keys((await read(restarted, '/api/v1/summary')).servers)).toHaveLength(HOSTILE.length);
      // Nothing leaked onto the prototype every object shares.
      expect(Object.keys(Object.prototype)).toEqual([]);
      expect(({} as Record<string, unknown>).total).toBeUndefined();
    });
  });
});

describe('names from logs that are Object.prototype members, in every section of `lens report`', () => {
  let dir: string;
  let report: Json;
  let text: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lens-hostile-report-'));
    const log = join(dir, 'client.ndjson');
    // In time order, as a log is written: the report judges what arrives out of order only within its window.
    const events = HOSTILE.flatMap((name) => [...trafficBefore(name), ...trafficAfter(name)]).sort(
      (a, b) => Date.parse(a.ts as string) - Date.parse(b.ts as string),
    );
    writeFileSync(log, `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
    const discovery = join(dir, 'discovery.json');
    writeFileSync(discovery, JSON.stringify({ servers: Object.fromEntries(HOSTILE.map((n) => [n, discoveryOf(n)])) }));
    const json = await lens(['report', '--json', '--discovery', discovery, log]);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    report = JSON.parse(json.stdout);
    const plain = await lens(['report', '--discovery', discovery, log]);
    expect(plain.code).toBe(0);
    text = plain.stdout;
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const perName = (record: Json, section: string) => {
    expect(Object.keys(record).sort(), section).toEqual([...HOSTILE].sort());
    for (const name of HOSTILE) expect(Object.hasOwn(record, name), `${section} ${name}`).toBe(true);
  };

  it('counts every event, per bucket and per hostile server', () => {
    expect(report.events).toBe(HOSTILE.length * SENT_TO_SERVER);
    perName(report.bucketsByServer, 'bucketsByServer');
    for (const name of HOSTILE) {
      const buckets = report.bucketsByServer[name];
      const total = Object.values(buckets as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(total, name).toBe(SENT_TO_SERVER);
    }
  });

  it('keys avoidable requests, the context gap, conduct and actionability by the names, as numbers', () => {
    perName(report.avoidable.byClient, 'avoidable.byClient');
    perName(report.avoidable.byServer, 'avoidable.byServer');
    perName(report.contextGap, 'contextGap');
    perName(report.conduct, 'conduct');
    for (const name of HOSTILE) {
      expect(report.avoidable.byClient[name].avoidable, name).toBeGreaterThan(0);
      expect(Object.keys(report.contextGap[name].reasons), name).toEqual([name]);
      expect(report.contextGap[name].reasons[name], name).toBe(2);
      expect(report.conduct[name].probedWithoutDiscovery, name).toBe(12);
      expect(
        report.conduct[name].hurtsMost.map((h: Json) => h.server),
        name,
      ).toEqual([name]);
    }
    for (const [server, counts] of Object.entries(report.actionability.byServer as Record<string, Json>)) {
      expect(HOSTILE).toContain(server);
      expect(counts.control.failures, server).toBeGreaterThan(0);
    }
  });

  it('lists both kinds of storm and the alarmed identities of each hostile name', () => {
    for (const name of HOSTILE) {
      const own = report.storms.filter((s: Json) => s.server === name && s.client === name);
      expect(new Set(own.map((s: Json) => s.kind)), name).toEqual(new Set(['retry_loop', 'probe_storm']));
      expect(
        report.identities.some((i: Json) => i.server === name && i.represented >= 40),
        name,
      ).toBe(true);
    }
  });

  it('counts one denial not held per hostile name, in numbers', () => {
    const denials = report.denialsNotHeld;
    expect(denials.total).toBe(HOSTILE.length);
    perName(denials.byClient, 'denialsNotHeld.byClient');
    perName(denials.byServer, 'denialsNotHeld.byServer');
    for (const name of HOSTILE) {
      expect(denials.byClient[name], name).toBe(1);
      expect(denials.byServer[name], name).toBe(1);
      const represented = denials.representedRefusals.find((r: Json) => r.client === name);
      expect(represented, name).toMatchObject({ evaluatedAfresh: 1, replayed: expect.any(Number) });
    }
  });

  it('writes every name in the text report, and no inherited function', () => {
    for (const name of HOSTILE) expect(text, name).toContain(name);
    expect(text).not.toContain('[native code]');
    expect(text).not.toMatch(/NaN|undefined|\[object Object\]/);
  });
});
