/**
 * The OpenAPI document at /api/v1/openapi.json against the app it describes: valid OpenAPI 3.1 by an OpenAPI
 * validator, one operation per route the app answers, every constraint it states on an input enforced by that
 * route, and every route's real answer of the shape it gives. Then the reference page that renders it.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '../../api/openapi/document.ts';
import { OPERATIONS } from '../../api/openapi/operations.ts';
import { errorBody } from '../../api/openapi/refusals.ts';
import { evaluateDue } from '../../api/services/alerts/engine.ts';
import { createTestApp, get, TEST_NOW, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';
import { openDemoSqlite, openTempSqlite, type TestStore } from '../support/stores.ts';

const HOST = '127.0.0.1:7700';
const RANGE = `from=${TEST_NOW - 24 * 3_600_000}&to=${TEST_NOW}`;
/** A rule that fires on the demo's refusals, and notifies a receiver the app is allowed to reach. */
const RULE = {
  name: 'Any refusal',
  metric: 'refusal_count',
  critical: 1,
  windowSeconds: 3600,
  targets: [{ type: 'webhook', url: 'http://127.0.0.1:9/hook' }],
};

interface Parameter {
  name: string;
  in: 'query' | 'path';
  schema: { type?: string; maximum?: number; maxLength?: number; enum?: string[] };
}
interface DocOperation {
  parameters: Parameter[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, unknown> }>;
}
type Doc = { paths: Record<string, Record<string, DocOperation>> } & Record<string, unknown>;

/** Each operation of the document as `METHOD /path` with its body. */
function operationsOf(doc: Doc) {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      operation,
    })),
  );
}

/** The app's routes as `METHOD /path` in OpenAPI's spelling, less middleware (`ALL`) and the reference page. */
function appRoutes(app: TestApp): string[] {
  const routes = app.routes
    .filter((route) => route.method !== 'ALL' && !route.path.startsWith('/api/docs'))
    .map((route) => `${route.method} ${openApiPath(route.path)}`);
  return [...new Set(routes)].sort();
}

function request(app: TestApp, method: string, path: string, body?: { type: string; data: string }) {
  return app.request(path, {
    method,
    headers: { host: HOST, ...(body && { 'content-type': body.type }) },
    ...(body && { body: body.data }),
  });
}

/** GETs `path` and expects a refusal: `status`, documented for the operation, with the one error body naming `field`. */
async function expectRefusal(app: TestApp, path: string, operation: DocOperation, status: number, field?: string) {
  const res = await get(app, path);
  const body = await res.json();
  expect({ status: res.status, body }).toMatchObject({ status, body: { error: field ? { field } : {} } });
  expect(Object.keys(operation.responses)).toContain(String(status));
  expect(errorBody.safeParse(body).error).toBeUndefined();
}

describe('the OpenAPI document', () => {
  let db: TestStore;
  let app: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    db = await openDemoSqlite(TEST_NOW);
    app = createTestApp(db.store, { allowedTargets: ['127.0.0.1:9'] });
    const res = await get(app, '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = await res.json();
  });
  afterAll(async () => db.dispose());

  it('is valid OpenAPI 3.1, its references all resolving', async () => {
    const validator = new Validator();
    // The validator resolves references in place: it gets a copy, the other tests the document as served.
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect({ valid: result.valid, version: validator.version }).toEqual({ valid: true, version: '3.1' });
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('has one operation per route the app answers: none missing, none stale', () => {
    const documented = operationsOf(doc).map(({ key }) => key);
    expect(documented.sort(), 'a - line is a route the document misses, a + line one the app lacks').toEqual(
      appRoutes(app),
    );
  });

  it('asks for a token on every route but the open ones, and gives each refusal the one error body', () => {
    const operations = operationsOf(doc);
    const open = operations.filter(({ operation }) => 'security' in operation).map(({ key }) => key);
    expect(open.sort()).toEqual(['GET /api/v1/health', 'GET /api/v1/openapi.json']);
    for (const { key, operation } of operations) {
      const statuses = Object.keys(operation.responses);
      expect(statuses.includes('401'), key).toBe(!open.includes(key));
      expect(statuses, key).toEqual(expect.arrayContaining(['403', '429', '500']));
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        expect(operation.responses[status]?.content, `${key} ${status}`).toEqual({
          'application/json': { schema: { $ref: '#/components/schemas/Error' } },
        });
      }
    }
  });

  describe('states the constraints its routes enforce', () => {
    /** Every GET without a path parameter, and its query parameters: the ones a caller can probe alone. */
    const queries = () =>
      operationsOf(doc)
        .filter(({ method, path }) => method === 'GET' && !path.includes('{'))
        .flatMap(({ path, operation }) =>
          operation.parameters.filter((p) => p.in === 'query').map((parameter) => ({ path, operation, parameter })),
        );

    it('the limit of /api/v1/storms is in the document, and the route takes it and refuses one more', async () => {
      const limit = doc.paths['/api/v1/storms']?.get?.parameters.find((p) => p.name === 'limit');
      const max = limit?.schema.maximum;
      expect(max).toBeGreaterThan(1);
      const at = await get(app, `/api/v1/storms?${RANGE}&limit=${max}`);
      expect(at.status).toBe(200);
      const over = `/api/v1/storms?${RANGE}&limit=${Number(max) + 1}`;
      await expectRefusal(app, over, doc.paths['/api/v1/storms']?.get as DocOperation, 400, 'limit');
    });

    it('every integer maximum: taken at it, refused past it with 400 naming the parameter', async () => {
      const bounded = queries().filter(({ parameter }) => parameter.schema.maximum !== undefined);
      expect(bounded.map(({ path, parameter }) => `${path} ${parameter.name}`)).toContain('/api/v1/events limit');
      for (const { path, operation, parameter } of bounded) {
        const max = Number(parameter.schema.maximum);
        expect((await get(app, `${path}?${RANGE}&${parameter.name}=${max}`)).status, path).toBe(200);
        await expectRefusal(app, `${path}?${RANGE}&${parameter.name}=${max + 1}`, operation, 400, parameter.name);
      }
    });

    it('every enumeration: each member taken, anything else refused with 400 naming the parameter', async () => {
      const enumerated = queries().filter(({ parameter }) => parameter.schema.enum !== undefined);
      expect(enumerated.length).toBeGreaterThan(3);
      for (const { path, operation, parameter } of enumerated) {
        for (const member of parameter.schema.enum ?? []) {
          const res = await get(app, `${path}?${RANGE}&${parameter.name}=${encodeURIComponent(member)}`);
          expect(res.status, `${path} ${parameter.name}=${member}`).toBe(200);
        }
        await expectRefusal(app, `${path}?${RANGE}&${parameter.name}=constructor`, operation, 400, parameter.name);
      }
    });

    it('every longest query text: one character more is refused with 400 naming the parameter', async () => {
      const capped = queries().filter(({ parameter }) => parameter.schema.maxLength !== undefined);
      expect(capped.length).toBeGreaterThan(5);
      for (const { path, operation, parameter } of capped) {
        const over = 'é'.repeat(Number(parameter.schema.maxLength) + 1);
        await expectRefusal(
          app,
          `${path}?${parameter.name}=${encodeURIComponent(over)}`,
          operation,
          400,
          parameter.name,
        );
      }
    });

    it('every longest path parameter of a read: taken (404, no such name), one more refused (400)', async () => {
      const reads = operationsOf(doc).filter(({ method, path }) => method === 'GET' && path.includes('{'));
      expect(reads.length).toBeGreaterThan(5);
      for (const { path, operation } of reads) {
        const [parameter] = operation.parameters.filter((p) => p.in === 'path');
        const max = Number(parameter?.schema.maxLength);
        await expectRefusal(app, path.replace(/\{\w+\}/, 'z'.repeat(max)), operation, 404);
        await expectRefusal(app, path.replace(/\{\w+\}/, 'z'.repeat(max + 1)), operation, 400, parameter?.name);
      }
    });
  });

  it("answers every route with the success status and body the document gives it (the demo's day)", async () => {
    const json = (value: unknown) => ({ type: 'application/json', data: JSON.stringify(value) });
    const list = async (path: string) => (await get(app, `${path}?${RANGE}`)).json();
    const created = await request(app, 'POST', '/api/v1/alerts/rules', json(RULE));
    const ruleId: string = (await created.json()).rule.id;
    // The rule fires and queues a notice: the alert lists below are read with rows in them.
    await evaluateDue(db.store, TEST_NOW, () => undefined);
    expect((await list('/api/v1/alerts')).alerts).not.toEqual([]);
    expect((await list('/api/v1/alerts/history')).history).not.toEqual([]);
    expect((await list('/api/v1/alerts/deliveries')).deliveries).not.toEqual([]);
    /** What fills a path's parameters: `{id}` names an event, a storm or a rule, by the path it follows. */
    const world: Record<string, string> = {
      server: (await list('/api/v1/servers')).servers[0].server,
      identity: (await list('/api/v1/identities')).identities[0].identity,
      '/api/v1/events': (await list('/api/v1/events')).events[0].id,
      '/api/v1/storms': (await list('/api/v1/storms')).storms[0].id,
      '/api/v1/alerts/rules': ruleId,
    };
    const bodies: Record<string, { type: string; data: string }> = {
      'POST /api/v1/ingest': { type: 'application/x-ndjson', data: JSON.stringify(clientEvent()) },
      'POST /v1/traces': json({ resourceSpans: [] }),
      'PUT /api/v1/servers/{server}/discovery': json({ endpoints: [{ method: 'POST', path: '/mcp' }] }),
      'PUT /api/v1/servers/{server}/overrides': json({
        overrides: [{ rpcCode: -32050, bucket: 'refusal', kind: 'policy_denied' }],
      }),
      'POST /api/v1/alerts/rules': json(RULE),
      'POST /api/v1/alerts/rules/preview': json({ rule: RULE }),
      'PUT /api/v1/alerts/rules/{id}': json({ ...RULE, name: 'Any refusal, renamed' }),
    };
    // DELETE last: the rule it removes is the one the others read.
    const operations = operationsOf(doc).sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    for (const { key, method, path, operation } of operations) {
      const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) =>
        encodeURIComponent((name === 'id' ? world[path.slice(0, path.indexOf('/{'))] : world[name]) ?? ''),
      );
      const ranged = operation.parameters.some((p) => p.name === 'from') ? `${concrete}?${RANGE}` : concrete;
      expect(operation.requestBody === undefined, `${key}: a body for it here`).toBe(bodies[key] === undefined);
      const res = await request(app, method, ranged, bodies[key]);
      const success = Number(Object.keys(operation.responses).find((status) => status.startsWith('2')));
      const text = await res.text();
      expect({ key, status: res.status, text: res.status === success ? '' : text }).toEqual({
        key,
        status: success,
        text: '',
      });
      const ok = OPERATIONS[key]?.ok;
      if (ok?.body === undefined) {
        // No JSON (the Prometheus exposition): one of the media types the document names.
        const mediaType = (type: string | null) => type?.split(';')[0]?.trim();
        expect(Object.keys(ok?.alsoAs ?? {}).map(mediaType), key).toContain(mediaType(res.headers.get('content-type')));
      } else {
        expect(ok.body.safeParse(JSON.parse(text)).error, key).toBeUndefined();
      }
    }
  });
});

describe('the reference page at /api/docs', () => {
  let db: TestStore;
  let app: TestApp;

  beforeAll(async () => {
    db = await openTempSqlite();
    app = createTestApp(db.store, { token: 'admin-token-0123456789abcdef' });
  });
  afterAll(async () => db.dispose());

  it('is HTML whose scripts and styles are files of this server, under a CSP that allows no inline script', async () => {
    const page = await get(app, '/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    const html = await page.text();
    expect(html).toContain('<title>Refusal Lens API</title>');
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1] ?? '');
    expect(scripts.length).toBeGreaterThan(0);
    for (const attributes of scripts) expect(attributes, 'no inline script').toMatch(/ src="\/api\/docs\/[\w.-]+"/);
    const files = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1] ?? '');
    expect(files).toEqual(['/api/docs/swagger-ui.css', '/api/docs/swagger-ui-bundle.js', '/api/docs/reference.js']);
    for (const file of files) {
      const res = await get(app, file);
      expect({ file, status: res.status }).toEqual({ file, status: 200 });
      expect(res.headers.get('content-type')).toMatch(file.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  it('renders the document it names, which answers without the token the server was started with', async () => {
    const script = await (await get(app, '/api/docs/reference.js')).text();
    const url = /url: '([^']+)'/.exec(script)?.[1];
    expect(url).toBe('/api/v1/openapi.json');
    const res = await get(app, url ?? '');
    expect(res.status).toBe(200);
    expect((await res.json()).info.title).toBe('Refusal Lens API');
    expect((await get(app, '/api/v1/summary')).status, 'the data still needs it').toBe(401);
  });

  it('serves no other file under its path: an unknown one, or one reached by a dot segment, is our 404', async () => {
    for (const path of ['/api/docs/index.html', '/api/docs/swagger-ui.js.map', '/api/docs/%2e%2e%2fpackage.json']) {
      const res = await get(app, path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(errorBody.safeParse(await res.json()).error).toBeUndefined();
    }
  });
});
