import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../api/env.ts';
import { deliverDue } from '../../api/services/alerts/deliver.ts';
import { evaluateDue } from '../../api/services/alerts/engine.ts';
import { getRule } from '../../api/services/alerts/rules.ts';
import {
  alertAnswers,
  createTestApp,
  get,
  postJson,
  postNdjson,
  putJson,
  TEST_NOW,
  type TestApp,
} from '../support/app.ts';
import { clientEvent, rpcError } from '../support/events.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

/**
 * Alert targets are requests this server makes: none may reach loopback, the private network or the cloud metadata
 * service unless the operator allows it, neither when saved nor when sent. Every test here connects only to
 * receivers on 127.0.0.1 that it allows by name; every other address is refused before any socket is opened.
 */

/** A rule that fires on the one refusal each test store holds. */
function firingRule(name: string, targets: { type: string; url?: string; id?: string }[]) {
  return { name, metric: 'refusal_count', critical: 1, windowSeconds: 600, keepFiringForSeconds: 0, targets };
}

async function withRefusal(config: Partial<AppConfig>) {
  const db = await openTempSqlite();
  const app = createTestApp(db.store, config);
  const refusal = clientEvent({ ts: new Date(TEST_NOW - 60_000).toISOString(), response: rpcError(-32602) });
  expect((await postNdjson(app, [refusal])).status).toBe(200);
  return { db, app };
}

/** A receiver on loopback that records every request it gets. */
async function startReceiver() {
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, paths, close: () => new Promise((r) => server.close(r)) };
}

/** An unused port on 127.0.0.1: listened on once, then closed, so a connection there is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

interface Attempt {
  outcome: string;
  httpStatus: number | null;
  error: string | null;
  retryAt: number | null;
}
interface Delivery {
  id: number;
  status: string;
  target: { type: string; host: string; secretSet: boolean };
  attempts: Attempt[];
}

async function deliveries(app: TestApp): Promise<Delivery[]> {
  const { deliveries } = await (await get(app, '/api/v1/alerts/deliveries')).json();
  return [...deliveries].sort((a: Delivery, b: Delivery) => a.id - b.id);
}

describe('alert targets on internal addresses, when saved', () => {
  let db: TestStore;
  let app: TestApp;
  beforeAll(async () => {
    db = await openTempSqlite();
    app = createTestApp(db.store);
  });
  afterAll(async () => db.dispose());

  it.each([
    ['http://127.0.0.1:7727/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://169.254.169.254/latest', 'link-local'],
    ['http://10.0.0.1/', 'private'],
    ['http://localhost/', 'loopback'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://[::ffff:127.0.0.1]:7727/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://127.1:7727/', 'loopback'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fd00:ec2::254]/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://192.168.0.1/', 'private'],
    ['http://100.64.0.1/', 'carrier-grade NAT'],
    ['https://127.0.0.1/hooks', 'loopback'],
  ])('refuses %s with our 400 naming the target', async (url, kind) => {
    const res = await postJson(app, '/api/v1/alerts/rules', firingRule('internal', [{ type: 'webhook', url }]));
    expect(res.status).toBe(400);
    const text = await res.text();
    const { error } = JSON.parse(text);
    expect(error).toMatchObject({ code: 'invalid_request', retryable: false, field: 'targets.0.url' });
    expect(error.message).toContain(kind);
    expect(error.fix).toContain('--allow-target');
    // The kind of address, not the address or port: the answer maps nothing.
    expect(text).not.toContain('7727');
    expect(text).not.toContain('169.254');
  });

  it('refuses the same on a replaced rule, and keeps the rule as it was', async () => {
    const created = await postJson(app, '/api/v1/alerts/rules', firingRule('fine', []));
    const { rule } = await created.json();
    const res = await putJson(
      app,
      `/api/v1/alerts/rules/${rule.id}`,
      firingRule('fine', [{ type: 'slack', url: 'http://169.254.169.254/latest/meta-data/' }]),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.field).toBe('targets.0.url');
    expect((await (await get(app, `/api/v1/alerts/rules/${rule.id}`)).json()).rule.targets).toEqual([]);
  });

  it('refuses a new target without a URL, and an id no target of the rule has', async () => {
    const res = await postJson(app, '/api/v1/alerts/rules', firingRule('no url', [{ type: 'webhook', id: 'x' }]));
    expect(res.status).toBe(400);
    expect((await res.json()).error.field).toBe('targets.0.url');
  });
});

describe('alert targets the operator allows', () => {
  let db: TestStore;
  let app: TestApp;
  beforeAll(async () => {
    db = await openTempSqlite();
    // Saved only: nothing in this store is evaluated, so nothing is ever sent to these.
    app = createTestApp(db.store, {
      allowedTargets: ['127.0.0.1:7727', 'localhost', '[::1]', '10.0.0.1', '169.254.169.254:80'],
    });
  });
  afterAll(async () => db.dispose());

  it.each([
    'http://127.0.0.1:7727/',
    'http://[::1]/',
    'http://[::1]:8080/',
    'http://10.0.0.1/',
    'http://localhost/',
    'http://localhost:9999/hook',
    'http://169.254.169.254/latest',
  ])('saves %s when the allow-list names it', async (url) => {
    const res = await postJson(app, '/api/v1/alerts/rules', firingRule('allowed', [{ type: 'webhook', url }]));
    expect(res.status).toBe(201);
  });

  it.each([
    'http://127.0.0.1:7728/',
    'http://127.0.0.2:7727/',
    'http://10.0.0.2/',
    'http://0.0.0.0/',
    'https://169.254.169.254/latest',
  ])('still refuses %s, which the allow-list does not name', async (url) => {
    const res = await postJson(app, '/api/v1/alerts/rules', firingRule('not allowed', [{ type: 'webhook', url }]));
    expect(res.status).toBe(400);
  });
});

describe('alert targets judged again at delivery', () => {
  let db: TestStore;
  let app: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let closed: number;
  const clock = () => TEST_NOW;

  beforeAll(async () => {
    receiver = await startReceiver();
    closed = await closedPort();
    // Allowed when saved; the deliverer below runs without the allow-list (shortened since, or a name that now
    // resolves to loopback: `localhost` does).
    ({ db, app } = await withRefusal({
      allowedTargets: [`127.0.0.1:${receiver.port}`, `localhost:${receiver.port}`, `127.0.0.1:${closed}`],
    }));
    const res = await postJson(
      app,
      '/api/v1/alerts/rules',
      firingRule('rebound', [
        { type: 'webhook', url: `http://127.0.0.1:${receiver.port}/by-address` },
        { type: 'webhook', url: `http://localhost:${receiver.port}/by-name` },
        { type: 'slack', url: `http://127.0.0.1:${closed}/closed-port` },
      ]),
    );
    expect(res.status).toBe(201);
    expect(await evaluateDue(db.store, TEST_NOW, () => undefined)).toBe(1);
    expect(await deliverDue(db.store, { clock, timeoutMs: 2000, backoffBaseMs: 1000, allowedTargets: [] })).toBe(3);
  });
  afterAll(async () => {
    await receiver.close();
    await db.dispose();
  });

  it('sends nothing to a target whose address is refused now', async () => {
    expect(receiver.paths).toEqual([]);
  });

  it('records the delivery as refused, for good, with a reason that maps no port', async () => {
    const all = await deliveries(app);
    expect(all).toHaveLength(3);
    for (const delivery of all) {
      expect(delivery.status).toBe('refused');
      expect(delivery.attempts).toHaveLength(1);
      const [attempt] = delivery.attempts;
      expect(attempt).toMatchObject({ outcome: 'refused', httpStatus: null, retryAt: null });
      expect(attempt?.error).toContain('loopback');
      const text = JSON.stringify(delivery.attempts);
      expect(text).not.toMatch(/ECONNREFUSED|connect|socket/i);
      expect(text).not.toContain(String(receiver.port));
      expect(text).not.toContain(String(closed));
      expect(text).not.toContain('127.0.0.1');
    }
    // Refused is final: a later round sends nothing either.
    await deliverDue(db.store, { clock: () => TEST_NOW + 3_600_000, timeoutMs: 2000, backoffBaseMs: 1000 });
    expect(receiver.paths).toEqual([]);
    expect((await deliveries(app)).every((d) => d.attempts.length === 1)).toBe(true);
  });
});

describe('allowed alert targets at delivery', () => {
  let db: TestStore;
  let app: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let closed: number;

  beforeAll(async () => {
    receiver = await startReceiver();
    closed = await closedPort();
    const allowedTargets = [`127.0.0.1:${receiver.port}`, `localhost:${receiver.port}`, `127.0.0.1:${closed}`];
    ({ db, app } = await withRefusal({ allowedTargets }));
    const res = await postJson(
      app,
      '/api/v1/alerts/rules',
      firingRule('allowed', [
        { type: 'webhook', url: `http://127.0.0.1:${receiver.port}/by-address` },
        { type: 'webhook', url: `http://localhost:${receiver.port}/by-name` },
        { type: 'webhook', url: `http://127.0.0.1:${closed}/closed-port` },
      ]),
    );
    expect(res.status).toBe(201);
    await evaluateDue(db.store, TEST_NOW, () => undefined);
    await deliverDue(db.store, { clock: () => TEST_NOW, timeoutMs: 2000, backoffBaseMs: 1000, allowedTargets });
  });
  afterAll(async () => {
    await receiver.close();
    await db.dispose();
  });

  it('sends to the address the name was judged on, by address and by name', async () => {
    expect(receiver.paths.sort()).toEqual(['/by-address', '/by-name']);
    const [byAddress, byName] = await deliveries(app);
    expect(byAddress?.status).toBe('delivered');
    expect(byName?.status).toBe('delivered');
  });

  it('records an allowed target that does not answer as ever: a transient failure with the socket error', async () => {
    const closedDelivery = (await deliveries(app))[2];
    expect(closedDelivery?.status).toBe('pending');
    expect(closedDelivery?.attempts[0]).toMatchObject({ outcome: 'transient', httpStatus: null });
    expect(closedDelivery?.attempts[0]?.error).toContain('ECONNREFUSED');
  });
});

describe('target URLs are secrets: written, replaced, never read back', () => {
  let db: TestStore;
  let app: TestApp;
  const SLACK = 'http://127.0.0.1:9/services/T0SECRETTEAM/B0SECRETHOOK/xoxSECRETTOKEN';
  const WEBHOOK = 'http://127.0.0.1:9/lens?token=WEBHOOKSECRET';
  let ruleId: string;

  beforeAll(async () => {
    ({ db, app } = await withRefusal({ allowedTargets: ['127.0.0.1:9'] }));
    const res = await postJson(
      app,
      '/api/v1/alerts/rules',
      firingRule('secret', [
        { type: 'slack', url: SLACK },
        { type: 'webhook', url: WEBHOOK },
      ]),
    );
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain('SECRET');
    ruleId = JSON.parse(text).rule.id;
    await evaluateDue(db.store, TEST_NOW, () => undefined);
    // Port 9 on loopback, allowed: the attempts fail as a closed port does, and the log shows that, not the URL.
    const allowedTargets = ['127.0.0.1:9'];
    await deliverDue(db.store, { clock: () => TEST_NOW, timeoutMs: 2000, backoffBaseMs: 1000, allowedTargets });
  });
  afterAll(async () => db.dispose());

  it('shows a target as its host only, in every GET answer of the alerts', async () => {
    for (const { path, text } of await alertAnswers(app, ruleId)) {
      expect(text, path).not.toContain('SECRET');
      expect(text, path).not.toContain('/services/');
      expect(text, path).not.toContain('token=');
    }
    const { rule } = await (await get(app, `/api/v1/alerts/rules/${ruleId}`)).json();
    expect(rule.targets).toEqual([
      { id: expect.any(String), type: 'slack', host: '127.0.0.1:9', secretSet: true },
      { id: expect.any(String), type: 'webhook', host: '127.0.0.1:9', secretSet: true },
    ]);
    const logged = await deliveries(app);
    expect(logged.map((d) => d.target)).toEqual([
      { type: 'slack', host: '127.0.0.1:9', secretSet: true },
      { type: 'webhook', host: '127.0.0.1:9', secretSet: true },
    ]);
    // They were sent (to a closed port): what the log keeps of that is the socket's error, without the path.
    expect(logged.map((d) => d.attempts[0]?.error)).toEqual([
      expect.stringContaining('ECONNREFUSED'),
      expect.stringContaining('ECONNREFUSED'),
    ]);
  });

  it('keeps a secret the editor sends back by id, replaces one given anew, and drops one left out', async () => {
    const { rule } = await (await get(app, `/api/v1/alerts/rules/${ruleId}`)).json();
    const [slack, webhook] = rule.targets;
    // The slack target as the answer showed it (host and all), the webhook with a new URL under its id.
    const res = await putJson(
      app,
      `/api/v1/alerts/rules/${ruleId}`,
      firingRule('secret, edited', [slack, { id: webhook.id, type: 'webhook', url: 'http://127.0.0.1:9/NEWSECRET' }]),
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('SECRET');
    expect(JSON.parse(text).rule.targets).toEqual([slack, webhook]);
    const stored = await getRule(db.store, ruleId);
    expect(stored?.targets.map((t) => t.url)).toEqual([SLACK, 'http://127.0.0.1:9/NEWSECRET']);

    const dropped = await putJson(app, `/api/v1/alerts/rules/${ruleId}`, firingRule('secret, one left', [slack]));
    expect(dropped.status).toBe(200);
    expect((await getRule(db.store, ruleId))?.targets.map((t) => t.url)).toEqual([SLACK]);
  });

  it('refuses an id that names no target of the rule, rather than guess a URL', async () => {
    const res = await putJson(
      app,
      `/api/v1/alerts/rules/${ruleId}`,
      firingRule('secret', [{ id: 'not-a-target', type: 'slack' }]),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.field).toBe('targets.0.url');
  });
});
