import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryOptions, deliverDue } from '../../api/services/alerts/deliver.ts';
import { evaluateDue } from '../../api/services/alerts/engine.ts';
import { createTestApp, get, postNdjson, TEST_NOW, type TestApp } from '../support/app.ts';
import { clientEvent, rpcError } from '../support/events.ts';
import { type Received, type Receiver, startReceiver } from '../support/receiver.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

describe.each(STORE_KINDS)('alert notification delivery on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    let receiver: Receiver;
    let clock = TEST_NOW;
    let options: DeliveryOptions;

    beforeAll(async () => {
      db = await kind.open();
      receiver = await startReceiver({
        '/flaky': [{ status: 500 }, { status: 502 }, { status: 200 }],
        '/throttled': [{ status: 429, headers: { 'retry-after': '30' } }, { status: 204 }],
        '/gone': [{ status: 404 }],
        '/down': [{ status: 503 }],
        '/slack': [{ status: 200 }],
      });
      // The receiver is on loopback: the operator allows it, at save and at delivery.
      const allowedTargets = [new URL(receiver.url).host];
      app = createTestApp(db.store, { allowedTargets });
      options = { clock: () => clock, timeoutMs: 2000, backoffBaseMs: 1000, allowedTargets };
      const refusal = clientEvent({ ts: new Date(TEST_NOW - 60_000).toISOString(), response: rpcError(-32602) });
      expect((await postNdjson(app, [refusal])).status).toBe(200);
      const targets = ['flaky', 'throttled', 'gone', 'down'].map((path) => ({
        type: 'webhook',
        url: `${receiver.url}/${path}`,
      }));
      const res = await app.request('/api/v1/alerts/rules', {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: '127.0.0.1:7700' },
        body: JSON.stringify({
          name: 'Any refusal <@here>',
          metric: 'refusal_count',
          critical: 1,
          windowSeconds: 600,
          targets: [...targets, { type: 'slack', url: `${receiver.url}/slack` }],
        }),
      });
      expect(res.status).toBe(201);
      expect(await evaluateDue(db.store, TEST_NOW, () => undefined)).toBe(1);
      // Work the outbox as the engine would, with the clock jumping a minute per round.
      for (let round = 0; round < 8; round++) {
        await deliverDue(db.store, options);
        clock += 60_000;
      }
    });
    afterAll(async () => {
      await receiver.close();
      await db.dispose();
    });

    // The log shows a target's host only; the rule's targets were queued in this order.
    const PATHS = ['/flaky', '/throttled', '/gone', '/down', '/slack'];
    const deliveryTo = async (path: string) => {
      const { deliveries } = await (await get(app, '/api/v1/alerts/deliveries')).json();
      const inOrder = [...deliveries].sort((a: { id: number }, b: { id: number }) => a.id - b.id);
      return inOrder[PATHS.indexOf(path)];
    };
    const outcomes = (delivery: { attempts: { outcome: string; httpStatus: number | null }[] }) =>
      delivery.attempts.map((a) => `${a.outcome}:${a.httpStatus}`);

    it('retries transient failures with backoff until the receiver takes it', async () => {
      const flaky = await deliveryTo('/flaky');
      expect(flaky.status).toBe('delivered');
      expect(outcomes(flaky)).toEqual(['transient:500', 'transient:502', 'delivered:200']);
      const [first, second] = flaky.attempts;
      expect(first.retryAt - first.at).toBe(1000);
      expect(second.retryAt - second.at).toBe(2000);
    });

    it('waits for Retry-After on a 429 before sending again', async () => {
      const throttled = await deliveryTo('/throttled');
      expect(outcomes(throttled)).toEqual(['throttled:429', 'delivered:204']);
      expect(throttled.attempts[0].retryAt - throttled.attempts[0].at).toBe(30_000);
      expect(throttled.attempts[1].at).toBeGreaterThanOrEqual(throttled.attempts[0].retryAt);
    });

    it('never retries a refusal (404)', async () => {
      const gone = await deliveryTo('/gone');
      expect(gone.status).toBe('refused');
      expect(outcomes(gone)).toEqual(['refused:404']);
      expect(gone.attempts[0].error).toBe('receiver says no');
      expect(receiver.received.filter((r) => r.path === '/gone')).toHaveLength(1);
    });

    it('gives up on a receiver that stays down, after the budget of 3 retries', async () => {
      const down = await deliveryTo('/down');
      expect(down.status).toBe('failed');
      expect(outcomes(down)).toEqual(['transient:503', 'transient:503', 'transient:503', 'transient:503']);
    });

    it('sends the documented payload with an idempotency key, and Slack a message with names escaped', async () => {
      const webhook = receiver.received.find((r) => r.path === '/flaky') as Received;
      expect(webhook.body).toMatchObject({ version: 1, status: 'firing', severity: 'critical', value: 1 });
      expect(webhook.headers['idempotency-key']).toBe((webhook.body as { key: string }).key);
      const keys = new Set(
        receiver.received.filter((r) => r.path === '/flaky').map((r) => r.headers['idempotency-key']),
      );
      expect(keys.size).toBe(1);
      const slack = receiver.received.find((r) => r.path === '/slack')?.body as { text: string };
      expect(slack.text).toContain('*CRITICAL* Any refusal &lt;@\u2060here&gt;');
      expect(slack.text).not.toContain('@here');
    });
  });
});
