import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resendToAlertmanagers } from '../../api/services/alerts/alertmanager-resend.ts';
import { type DeliveryOptions, deliverDue } from '../../api/services/alerts/deliver.ts';
import { evaluateDue, startAlertEngine } from '../../api/services/alerts/engine.ts';
import { getRule } from '../../api/services/alerts/rules.ts';
import { ALERTMANAGER_HOLD_MS } from '../../shared/alerts/receivers.ts';
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
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { openTempSqlite, STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * PagerDuty and Alertmanager targets against local receivers (real HTTP): trigger and resolve, the delivery
 * policy (429 waits, 5xx backs off, 4xx is final), and the routing key as a secret.
 */

const KEY = 'R0UTINGKEYSECRET0123456789abcdef';
/** A client name as a log may carry it: quotes, markup, a line break, bidi override, emoji. */
const CLIENT = 'ide-"host"\n</script>{{x}} @here \u202e 🚨';
const RESOLVED_AT = TEST_NOW + 20 * 60_000;

interface Attempt {
  outcome: string;
  httpStatus: number | null;
  at: number;
  retryAt: number | null;
  error: string | null;
}
interface Delivery {
  id: number;
  status: string;
  attempts: Attempt[];
}

/** Every delivery, oldest first: a rule's targets are queued in their order, the firing before the resolve. */
async function deliveries(app: TestApp): Promise<Delivery[]> {
  const { deliveries } = await (await get(app, '/api/v1/alerts/deliveries')).json();
  return [...deliveries].sort((a: Delivery, b: Delivery) => a.id - b.id);
}
const outcomes = (delivery: Delivery | undefined) => delivery?.attempts.map((a) => `${a.outcome}:${a.httpStatus}`);

/** A store holding one refusal by CLIENT, a minute before TEST_NOW, and an app that may reach the receiver. */
async function storeWithRefusal(db: TestStore, receiver: Receiver) {
  const allowedTargets = [new URL(receiver.url).host];
  const app = createTestApp(db.store, { allowedTargets });
  const refusal = clientEvent({
    ts: new Date(TEST_NOW - 60_000).toISOString(),
    client: CLIENT,
    response: rpcError(-32602),
  });
  expect((await postNdjson(app, [refusal])).status).toBe(200);
  return { app, allowedTargets };
}

function pagedRule(targets: object[]) {
  return {
    name: 'Refusals by client',
    metric: 'refusal_count',
    groupBy: 'client',
    critical: 1,
    windowSeconds: 600,
    keepFiringForSeconds: 0,
    targets,
  };
}

/** Fires at TEST_NOW and resolves at RESOLVED_AT (the refusal has left the window), each followed by delivery rounds. */
async function fireAndResolve(db: TestStore, options: DeliveryOptions, setClock: (now: number) => void) {
  for (const at of [TEST_NOW, RESOLVED_AT]) {
    expect(await evaluateDue(db.store, at, () => undefined)).toBe(1);
    for (let round = 0; round < 6; round++) {
      setClock(at + round * 60_000);
      await deliverDue(db.store, options);
    }
  }
}

describe.each(STORE_KINDS)('paging targets on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    let receiver: Receiver;
    let logged: Delivery[];

    beforeAll(async () => {
      db = await kind.open();
      receiver = await startReceiver({
        '/pd': [{ status: 202 }],
        '/pd-throttled': [{ status: 429, headers: { 'retry-after': '30' } }, { status: 202 }],
        '/pd-invalid': [{ status: 400, echo: true }],
        '/am/api/v2/alerts': [{ status: 200 }],
        '/am-flaky/api/v2/alerts': [{ status: 503 }, { status: 500 }, { status: 200 }],
        '/am-invalid/api/v2/alerts': [{ status: 400 }],
      });
      let allowedTargets: string[];
      ({ app, allowedTargets } = await storeWithRefusal(db, receiver));
      const res = await postJson(
        app,
        '/api/v1/alerts/rules',
        pagedRule([
          { type: 'pagerduty', url: `${receiver.url}/pd`, routingKey: KEY },
          { type: 'alertmanager', url: `${receiver.url}/am` },
          { type: 'pagerduty', url: `${receiver.url}/pd-throttled`, routingKey: KEY },
          { type: 'pagerduty', url: `${receiver.url}/pd-invalid`, routingKey: KEY },
          { type: 'alertmanager', url: `${receiver.url}/am-flaky/` },
          { type: 'alertmanager', url: `${receiver.url}/am-invalid/api/v2/alerts` },
        ]),
      );
      expect(res.status).toBe(201);
      let clock = TEST_NOW;
      const options = { clock: () => clock, timeoutMs: 2000, backoffBaseMs: 1000, allowedTargets };
      await fireAndResolve(db, options, (now) => {
        clock = now;
      });
      logged = await deliveries(app);
    });
    afterAll(async () => {
      await receiver.close();
      await db.dispose();
    });

    it('triggers and resolves one PagerDuty alert with the same dedup_key, names from logs as data', () => {
      const [trigger, resolve, ...more] = receiver.bodiesAt('/pd') as Record<string, unknown>[];
      expect(more).toEqual([]);
      expect(trigger).toMatchObject({ routing_key: KEY, event_action: 'trigger', client: 'Refusal Lens' });
      expect(trigger?.payload).toMatchObject({
        summary: expect.stringContaining(CLIENT),
        severity: 'critical',
        timestamp: new Date(TEST_NOW).toISOString(),
        class: 'refusal_count',
        custom_details: { group_by: 'client', group: CLIENT, value: 1, threshold: 1, metric: 'refusal_count' },
      });
      expect(resolve).toEqual({ routing_key: KEY, event_action: 'resolve', dedup_key: trigger?.dedup_key });
      const pd = receiver.received.find((r) => r.path === '/pd');
      expect(pd?.headers['content-type']).toBe('application/json');
    });

    it('fires and resolves one Alertmanager alert: the same labels, endsAt ahead and then at the resolution', () => {
      const [firing, resolved, ...more] = receiver.bodiesAt('/am/api/v2/alerts') as Record<string, unknown>[][];
      expect(more).toEqual([]);
      expect(firing).toHaveLength(1);
      expect(firing?.[0]).toMatchObject({
        labels: {
          alertname: 'Refusals by client',
          metric: 'refusal_count',
          severity: 'critical',
          client: CLIENT,
          rule_id: expect.any(String),
        },
        startsAt: new Date(TEST_NOW).toISOString(),
        endsAt: new Date(TEST_NOW + ALERTMANAGER_HOLD_MS).toISOString(),
      });
      expect(resolved?.[0]?.labels).toEqual(firing?.[0]?.labels);
      expect(resolved?.[0]?.endsAt).toBe(new Date(RESOLVED_AT).toISOString());
    });

    it('waits for Retry-After when PagerDuty throttles', () => {
      const throttled = logged[2];
      expect(outcomes(throttled)).toEqual(['throttled:429', 'delivered:202']);
      const [first, second] = throttled?.attempts ?? [];
      expect((first?.retryAt ?? 0) - (first?.at ?? 0)).toBe(30_000);
      expect(second?.at).toBeGreaterThanOrEqual(first?.retryAt ?? Number.POSITIVE_INFINITY);
    });

    it('backs off on an Alertmanager 5xx until it takes the alert', () => {
      const flaky = logged[4];
      expect(outcomes(flaky)).toEqual(['transient:503', 'transient:500', 'delivered:200']);
      const [first, second] = flaky?.attempts ?? [];
      expect((first?.retryAt ?? 0) - (first?.at ?? 0)).toBe(1000);
      expect((second?.retryAt ?? 0) - (second?.at ?? 0)).toBe(2000);
    });

    it('never retries a 4xx, and goes on to the resolve after it', () => {
      expect(outcomes(logged[3])).toEqual(['refused:400']);
      expect(outcomes(logged[5])).toEqual(['refused:400']);
      expect(outcomes(logged[9])).toEqual(['refused:400']);
      expect(outcomes(logged[11])).toEqual(['refused:400']);
      expect(receiver.bodiesAt('/pd-invalid')).toHaveLength(2);
      expect(receiver.bodiesAt('/am-invalid/api/v2/alerts')).toHaveLength(2);
      expect(logged).toHaveLength(12);
    });

    it('never shows the routing key: not in the rule, not in the log, not where the receiver quoted it', async () => {
      // The refusing receiver echoed the event it got, key and all; the log keeps its words without the key.
      expect(logged[3]?.attempts[0]?.error).toContain('"routing_key":"[routing key]"');
      const { rules } = await (await get(app, '/api/v1/alerts/rules')).json();
      const ruleId = rules.find((r: { name: string }) => r.name === 'Refusals by client').id;
      for (const { path, text } of await alertAnswers(app, ruleId)) {
        expect(text, path).not.toContain(KEY);
        expect(text, path).not.toContain(KEY.slice(0, 12));
        expect(text, path).not.toContain('routingKey');
      }
      const { rule } = await (await get(app, `/api/v1/alerts/rules/${ruleId}`)).json();
      expect(rule.targets[0]).toEqual({
        id: expect.any(String),
        type: 'pagerduty',
        host: new URL(receiver.url).host,
        secretSet: true,
      });
    });
  });
});

describe('PagerDuty targets when saved', () => {
  let db: TestStore;
  let app: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    db = await openTempSqlite();
    receiver = await startReceiver({});
    ({ app } = await storeWithRefusal(db, receiver));
  });
  afterAll(async () => {
    await receiver.close();
    await db.dispose();
  });

  it('refuse a new PagerDuty target without a routing key, naming the field', async () => {
    const res = await postJson(app, '/api/v1/alerts/rules', pagedRule([{ type: 'pagerduty', url: receiver.url }]));
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ code: 'invalid_request', field: 'targets.0.routingKey', retryable: false });
    expect(error.fix).toContain('Integration Key');
  });

  it('refuse a routing key on another type and a key that is no key, without repeating it', async () => {
    const onSlack = await postJson(
      app,
      '/api/v1/alerts/rules',
      pagedRule([{ type: 'slack', url: receiver.url, routingKey: KEY }]),
    );
    expect(onSlack.status).toBe(400);
    expect((await onSlack.json()).error.field).toBe('targets.0.routingKey');
    const spaced = await postJson(
      app,
      '/api/v1/alerts/rules',
      pagedRule([{ type: 'pagerduty', url: receiver.url, routingKey: `${KEY} "x"` }]),
    );
    expect(spaced.status).toBe(400);
    const text = await spaced.text();
    expect(JSON.parse(text).error.field).toBe('targets.0.routingKey');
    expect(text).not.toContain(KEY);
  });

  it('keep a saved routing key when the editor sends the target back by id, and replace it when given', async () => {
    const created = await postJson(
      app,
      '/api/v1/alerts/rules',
      pagedRule([{ type: 'pagerduty', url: `${receiver.url}/eu`, routingKey: KEY }]),
    );
    expect(created.status).toBe(201);
    const { rule } = await created.json();
    // The answer's own target shape, sent back as it is.
    const kept = await putJson(app, `/api/v1/alerts/rules/${rule.id}`, pagedRule(rule.targets));
    expect(kept.status).toBe(200);
    expect((await getRule(db.store, rule.id))?.targets).toEqual([
      { id: rule.targets[0].id, type: 'pagerduty', url: `${receiver.url}/eu`, routingKey: KEY },
    ]);
    const replaced = await putJson(
      app,
      `/api/v1/alerts/rules/${rule.id}`,
      pagedRule([{ id: rule.targets[0].id, type: 'pagerduty', routingKey: 'NEWKEY' }]),
    );
    expect(replaced.status).toBe(200);
    expect((await getRule(db.store, rule.id))?.targets[0]).toMatchObject({
      url: `${receiver.url}/eu`,
      routingKey: 'NEWKEY',
    });
  });
});

describe.each(STORE_KINDS)('a saved routing key bound to its URL on $name (issue 39, item 7)', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    let receiver: Receiver;
    beforeAll(async () => {
      db = await kind.open();
      receiver = await startReceiver({});
      app = createTestApp(db.store, { allowedTargets: [new URL(receiver.url).host] });
    });
    afterAll(async () => {
      await receiver.close();
      await db.dispose();
    });

    it('refuses a changed URL without the key again, keeps what was saved, and takes the URL with a key', async () => {
      const created = await postJson(
        app,
        '/api/v1/alerts/rules',
        pagedRule([{ type: 'pagerduty', url: `${receiver.url}/pd`, routingKey: KEY }]),
      );
      expect(created.status).toBe(201);
      const { rule } = await created.json();
      const id = rule.targets[0].id;
      const moved = await putJson(
        app,
        `/api/v1/alerts/rules/${rule.id}`,
        pagedRule([{ id, type: 'pagerduty', url: `${receiver.url}/attacker` }]),
      );
      expect(moved.status).toBe(400);
      const text = await moved.text();
      expect(text).not.toContain(KEY);
      expect(JSON.parse(text).error).toMatchObject({
        code: 'secret_required',
        field: 'targets.0.routingKey',
        retryable: false,
      });
      expect((await getRule(db.store, rule.id))?.targets).toEqual([
        { id, type: 'pagerduty', url: `${receiver.url}/pd`, routingKey: KEY },
      ]);
      const withKey = await putJson(
        app,
        `/api/v1/alerts/rules/${rule.id}`,
        pagedRule([{ id, type: 'pagerduty', url: `${receiver.url}/eu`, routingKey: 'NEWKEY' }]),
      );
      expect(withKey.status).toBe(200);
      expect((await getRule(db.store, rule.id))?.targets).toEqual([
        { id, type: 'pagerduty', url: `${receiver.url}/eu`, routingKey: 'NEWKEY' },
      ]);
    });
  });
});

describe('Alertmanager re-sends', () => {
  let db: TestStore;
  let receiver: Receiver;
  let options: DeliveryOptions;
  let clock = TEST_NOW;
  const log: string[] = [];
  const resend = (at: number) => {
    clock = at;
    return resendToAlertmanagers(db.store, options, (line) => log.push(line));
  };

  beforeAll(async () => {
    db = await openTempSqlite();
    receiver = await startReceiver({ '/api/v2/alerts': [{ status: 200 }], '/down/api/v2/alerts': [{ status: 503 }] });
    const { app, allowedTargets } = await storeWithRefusal(db, receiver);
    options = { clock: () => clock, timeoutMs: 2000, backoffBaseMs: 1000, allowedTargets, publicUrl: null };
    const targets = [
      { type: 'alertmanager', url: receiver.url },
      { type: 'alertmanager', url: `${receiver.url}/down` },
    ];
    expect((await postJson(app, '/api/v1/alerts/rules', pagedRule(targets))).status).toBe(201);
    expect((await postJson(app, '/api/v1/alerts/rules', { ...pagedRule([]), name: 'no targets' })).status).toBe(201);
  });
  afterAll(async () => {
    await receiver.close();
    await db.dispose();
  });

  it('send nothing before anything fires', async () => {
    expect(await resend(TEST_NOW - 60_000)).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });

  it('tell the Alertmanager again what fires, with its start and a new end, and what resolved for 5 minutes', async () => {
    clock = TEST_NOW;
    await evaluateDue(db.store, TEST_NOW, () => undefined);
    await deliverDue(db.store, options);
    const [outboxFiring] = receiver.bodiesAt('/api/v2/alerts') as { labels: object }[][];
    expect(outboxFiring).toHaveLength(1);

    expect(await resend(TEST_NOW + 90_000)).toBe(2); // one alert, to each of two Alertmanagers
    const [, again] = receiver.bodiesAt('/api/v2/alerts') as Record<string, unknown>[][];
    expect(again).toEqual([
      expect.objectContaining({
        labels: outboxFiring?.[0]?.labels,
        startsAt: new Date(TEST_NOW).toISOString(),
        endsAt: new Date(TEST_NOW + 90_000 + ALERTMANAGER_HOLD_MS).toISOString(),
      }),
    ]);
    // The one that answers 503 is logged by its host, and tried again next round, not through the outbox.
    expect(log.at(-1)).toBe(`re-sending alerts to the Alertmanager at ${new URL(receiver.url).host} failed: HTTP 503`);

    clock = RESOLVED_AT;
    await evaluateDue(db.store, RESOLVED_AT, () => undefined);
    await deliverDue(db.store, options);
    const sentBefore = receiver.bodiesAt('/api/v2/alerts').length;
    expect(await resend(RESOLVED_AT + 4 * 60_000)).toBe(2);
    expect(receiver.bodiesAt('/api/v2/alerts')).toHaveLength(sentBefore + 1);
    const resolved = receiver.bodiesAt('/api/v2/alerts').at(-1) as Record<string, unknown>[];
    expect(resolved).toEqual([
      expect.objectContaining({ labels: outboxFiring?.[0]?.labels, endsAt: new Date(RESOLVED_AT).toISOString() }),
    ]);
    expect(resolved[0]).not.toHaveProperty('startsAt');
    expect(await resend(RESOLVED_AT + 6 * 60_000)).toBe(0);
  });

  it('are part of the engine tick once a minute, not on every tick', async () => {
    const engine = startAlertEngine(db.store, { ...options, tickMs: 3_600_000, log: () => undefined });
    const sentBefore = receiver.bodiesAt('/api/v2/alerts').length;
    clock = RESOLVED_AT + 60_000;
    await engine.tick();
    clock += 30_000;
    await engine.tick();
    // The first tick re-sent the resolved alert; the second, half a minute later, did not.
    expect(receiver.bodiesAt('/api/v2/alerts')).toHaveLength(sentBefore + 1);
    await engine.stop();
  });
});
