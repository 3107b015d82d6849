import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../api/cli/cli-error.ts';
import { serveCommand } from '../../api/cli/serve.ts';
import { createTestApp, postNdjson, TEST_NOW, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

/** Two tokens: the admin's reads and edits everything, the shipper's only sends logs. */
const ADMIN = 'admin-token-0123456789abcdef';
const INGEST = 'ingest-token-fedcba9876543210';

const RULE = { name: 'Any refusal', metric: 'refusal_count', critical: 1, windowSeconds: 600 };
const RANGE = `from=${TEST_NOW - 3_600_000}&to=${TEST_NOW}`;

function call(app: TestApp, method: string, path: string, token: string | null, body?: unknown) {
  return app.request(path, {
    method,
    headers: {
      host: '127.0.0.1:7700',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Every route but ingest and health, as the dashboard and an operator call them. */
const ADMIN_ROUTES: [method: string, path: string, body?: unknown][] = [
  ['GET', '/api/v1/alerts/rules'],
  ['POST', '/api/v1/alerts/rules', RULE],
  ['POST', '/api/v1/alerts/rules/preview', { rule: RULE }],
  ['GET', '/api/v1/alerts'],
  ['GET', '/api/v1/alerts/history'],
  ['GET', '/api/v1/alerts/deliveries'],
  ['GET', `/api/v1/summary?${RANGE}`],
  ['GET', `/api/v1/events?${RANGE}`],
  ['GET', `/api/v1/servers?${RANGE}`],
  ['GET', `/api/v1/timeseries?${RANGE}`],
  ['GET', `/api/v1/storms?${RANGE}`],
  ['GET', `/api/v1/identities?${RANGE}`],
  ['GET', `/api/v1/clients?${RANGE}`],
  ['GET', `/api/v1/context-gap?${RANGE}`],
  ['GET', '/api/v1/servers/release-notes/overrides'],
];

describe('the ingest token and the admin token', () => {
  let db: TestStore;
  let app: TestApp;
  let ruleId: string;
  beforeAll(async () => {
    db = await openTempSqlite();
    app = createTestApp(db.store, { token: ADMIN, ingestToken: INGEST });
    const created = await call(app, 'POST', '/api/v1/alerts/rules', ADMIN, RULE);
    expect(created.status).toBe(201);
    ruleId = (await created.json()).rule.id;
  });
  afterAll(async () => db.dispose());

  it('lets the ingest token send logs, and the health route answer anyone', async () => {
    const res = await postNdjson(app, [clientEvent()], { authorization: `Bearer ${INGEST}` });
    expect(res.status).toBe(200);
    expect((await res.json()).accepted).toBe(1);
    expect((await call(app, 'GET', '/api/v1/health', null)).status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/health', INGEST)).status).toBe(200);
  });

  it.each([
    ...ADMIN_ROUTES,
    ['GET', '/api/v1/alerts/rules/:id'],
    ['PUT', '/api/v1/alerts/rules/:id', RULE],
    ['DELETE', '/api/v1/alerts/rules/:id'],
    ['GET', '/api/v1/ingest'],
  ] as [string, string, unknown?][])('refuses the ingest token %s %s with our 403', async (method, path, body) => {
    const res = await call(app, method, path.replace(':id', ruleId), INGEST, body);
    expect(res.status).toBe(403);
    const text = await res.text();
    const { error } = JSON.parse(text);
    expect(error).toMatchObject({ code: 'forbidden', retryable: false });
    expect(error.message).toContain('ingest');
    expect(error.fix).toContain('LENS_TOKEN');
    expect(text).not.toContain(INGEST);
  });

  it('left the rule alone that the ingest token tried to edit and delete', async () => {
    const res = await call(app, 'GET', `/api/v1/alerts/rules/${ruleId}`, ADMIN);
    expect(res.status).toBe(200);
    expect((await res.json()).rule.name).toBe(RULE.name);
  });

  it.each(ADMIN_ROUTES)('lets the admin token %s %s', async (method, path, body) => {
    const res = await call(app, method, path, ADMIN, body);
    expect(res.status).toBeLessThan(300);
  });

  it('lets the admin token send logs too, and read, replace and delete a rule', async () => {
    const res = await postNdjson(app, [clientEvent()], { authorization: `Bearer ${ADMIN}` });
    expect(res.status).toBe(200);
    expect((await call(app, 'GET', `/api/v1/alerts/rules/${ruleId}`, ADMIN)).status).toBe(200);
    expect((await call(app, 'PUT', `/api/v1/alerts/rules/${ruleId}`, ADMIN, RULE)).status).toBe(200);
    expect((await call(app, 'DELETE', `/api/v1/alerts/rules/${ruleId}`, ADMIN)).status).toBe(200);
  });

  it('answers no token, or a wrong one, with the 401 as before, on ingest too', async () => {
    for (const token of [null, 'wrong', `${INGEST}x`, INGEST.slice(0, -1)]) {
      const summary = await call(app, 'GET', `/api/v1/summary?${RANGE}`, token);
      expect(summary.status).toBe(401);
      expect((await summary.json()).error.code).toBe('unauthenticated');
      const ingest = await postNdjson(app, [clientEvent()], token === null ? {} : { authorization: `Bearer ${token}` });
      expect(ingest.status).toBe(401);
    }
  });
});

describe('serve refuses token and allow-list settings that cannot work', () => {
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
  });

  it.each([
    [{ LENS_INGEST_TOKEN: INGEST }, [], 'needs LENS_TOKEN'],
    [{ LENS_TOKEN: ADMIN, LENS_INGEST_TOKEN: ADMIN }, [], 'must differ'],
    [{ LENS_ALLOW_TARGETS: '127.0.0.1:7727, http://x/' }, [], 'HOST[:PORT]'],
    [{}, ['--allow-target', 'host:port'], 'HOST[:PORT]'],
  ])('refuses %o %o before listening', async (env, args, message) => {
    process.env = { ...saved, LENS_TOKEN: '', LENS_INGEST_TOKEN: '', LENS_ALLOW_TARGETS: '', ...env };
    const run = serveCommand(['--port', '0', '--data-dir', '/nonexistent/never-opened', ...args]);
    await expect(run).rejects.toBeInstanceOf(CliError);
    await expect(run).rejects.toThrow(message);
  });
});
