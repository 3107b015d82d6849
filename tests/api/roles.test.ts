import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../api/cli/cli-error.ts';
import { serveCommand } from '../../api/cli/serve.ts';
import { createTestApp, postNdjson, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

/** Two tokens: the admin's reads and edits everything, the shipper's only sends logs. */
const ADMIN = 'admin-token-0123456789abcdef';
const INGEST = 'ingest-token-fedcba9876543210';

const RULE = { name: 'Any refusal', metric: 'refusal_count', critical: 1, windowSeconds: 600 };

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

/**
 * Which token each route takes, and the 401, 403 and the rest on every route, are in routes-security.test.ts; here
 * what the shipper's token does beyond the table.
 */
describe('the ingest token and the admin token', () => {
  let db: TestStore;
  let app: TestApp;
  beforeAll(async () => {
    db = await openTempSqlite();
    app = createTestApp(db.store, { token: ADMIN, ingestToken: INGEST });
  });
  afterAll(async () => db.dispose());

  it("lets the ingest token send logs, stored as the admin token's are", async () => {
    const event = clientEvent();
    const res = await postNdjson(app, [event], { authorization: `Bearer ${INGEST}` });
    expect(res.status).toBe(200);
    expect((await res.json()).accepted).toBe(1);
    const stored = await call(app, 'GET', `/api/v1/events/${event.id}`, ADMIN);
    expect((await stored.json()).id).toBe(event.id);
  });

  it('refuses the ingest token with 403 on the ingest path by another method, before routing', async () => {
    const res = await call(app, 'GET', '/api/v1/ingest', INGEST);
    expect(res.status).toBe(403);
    expect((await res.json()).error).toMatchObject({ code: 'forbidden', retryable: false });
  });

  it('leaves a rule alone that the ingest token tries to replace and delete', async () => {
    const created = await call(app, 'POST', '/api/v1/alerts/rules', ADMIN, RULE);
    expect(created.status).toBe(201);
    const { id } = (await created.json()).rule;
    expect((await call(app, 'PUT', `/api/v1/alerts/rules/${id}`, INGEST, { ...RULE, name: 'taken' })).status).toBe(403);
    expect((await call(app, 'DELETE', `/api/v1/alerts/rules/${id}`, INGEST)).status).toBe(403);
    const res = await call(app, 'GET', `/api/v1/alerts/rules/${id}`, ADMIN);
    expect(res.status).toBe(200);
    expect((await res.json()).rule.name).toBe(RULE.name);
  });
});

describe('serve refuses token, allow-list and public URL settings that cannot work', () => {
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
  });

  it.each([
    [{ LENS_INGEST_TOKEN: INGEST }, [], 'needs LENS_TOKEN'],
    [{ LENS_TOKEN: ADMIN, LENS_INGEST_TOKEN: ADMIN }, [], 'must differ'],
    [{ LENS_ALLOW_TARGETS: '127.0.0.1:7727, http://x/' }, [], 'HOST[:PORT]'],
    [{}, ['--allow-target', 'host:port'], 'HOST[:PORT]'],
    [{ LENS_PUBLIC_URL: 'lens.example.com' }, [], '--public-url'],
    [{}, ['--public-url', 'javascript:alert(1)'], '--public-url'],
  ])('refuses %o %o before listening', async (env, args, message) => {
    process.env = {
      ...saved,
      LENS_TOKEN: '',
      LENS_INGEST_TOKEN: '',
      LENS_ALLOW_TARGETS: '',
      LENS_PUBLIC_URL: '',
      ...env,
    };
    const run = serveCommand(['--port', '0', '--data-dir', '/nonexistent/never-opened', ...args]);
    await expect(run).rejects.toBeInstanceOf(CliError);
    await expect(run).rejects.toThrow(message);
  });
});
