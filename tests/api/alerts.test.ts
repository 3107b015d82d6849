import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateDue } from '../../api/services/alerts/engine.ts';
import { narrowingOf, readMetric, roundReader, storeReads } from '../../api/services/alerts/readings.ts';
import { seedDefaultRules } from '../../api/services/alerts/rules.ts';
import { keptData } from '../../api/services/retention.ts';
import type { SqlRunner } from '../../db/runner.ts';
import { type GroupBy, METRIC_INFO, type Metric } from '../../shared/alerts/metrics.ts';
import { createTestApp, get, postJson, postNdjson, putJson, TEST_NOW, type TestApp } from '../support/app.ts';
import { clientEvent, rpcError } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

const MIN = 60_000;
const HOST = { host: '127.0.0.1:7700' };

/** `n` refusals (-32602) from `client` to `server`, one every 10 s from `start`. */
function refusals(n: number, start: number, server = 'alpha', client = 'agent-7') {
  return Array.from({ length: n }, (_, i) =>
    clientEvent({
      ts: new Date(start + i * 10_000).toISOString(),
      server,
      client,
      request: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'gone', arguments: { i } } },
      response: rpcError(-32602, 'Unknown tool: gone'),
    }),
  );
}

const RULE = {
  name: 'Refusals per server',
  metric: 'refusal_count',
  groupBy: 'server',
  comparator: '>=',
  warning: 3,
  critical: 10,
  windowSeconds: 600,
  intervalSeconds: 60,
  pendingSeconds: 60,
  keepFiringForSeconds: 0,
  targets: [{ type: 'webhook', url: 'http://127.0.0.1:9/hook' }],
};

/** The targets of these rules are a closed port on loopback: refused unless the operator allows them. */
const ALLOW = { allowedTargets: ['127.0.0.1:9'] };

describe.each(STORE_KINDS)('alert rules API on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeAll(async () => {
      db = await kind.open();
      app = createTestApp(db.store, ALLOW);
    });
    afterAll(async () => db.dispose());

    it('creates, reads, replaces and deletes a rule, filling in the defaults', async () => {
      const created = await postJson(app, '/api/v1/alerts/rules', {
        name: 'x',
        metric: 'avoidable_share',
        warning: 0.2,
      });
      expect(created.status).toBe(201);
      const { rule } = await created.json();
      expect(rule).toMatchObject({ name: 'x', groupBy: 'none', comparator: '>=', windowSeconds: 900, enabled: true });
      expect(rule).toMatchObject({ pendingSeconds: 0, keepFiringForSeconds: 300, noData: 'ok', targets: [] });
      const replaced = await putJson(app, `/api/v1/alerts/rules/${rule.id}`, { ...RULE, name: 'y', enabled: false });
      expect((await replaced.json()).rule).toMatchObject({ id: rule.id, name: 'y', enabled: false });
      const list = await (await get(app, '/api/v1/alerts/rules')).json();
      expect(list.rules.map((r: { id: string }) => r.id)).toContain(rule.id);
      const deleted = await app.request(`/api/v1/alerts/rules/${rule.id}`, { method: 'DELETE', headers: HOST });
      expect(deleted.status).toBe(200);
      const gone = await get(app, `/api/v1/alerts/rules/${rule.id}`);
      expect(gone.status).toBe(404);
      expect((await gone.json()).error).toMatchObject({ code: 'not_found', retryable: false });
    });

    it('answers 404 to replacing or deleting a rule that is gone, and brings none back', async () => {
      const { rule } = await (await postJson(app, '/api/v1/alerts/rules', RULE)).json();
      const remove = () => app.request(`/api/v1/alerts/rules/${rule.id}`, { method: 'DELETE', headers: HOST });
      expect((await remove()).status).toBe(200);
      for (const res of [await putJson(app, `/api/v1/alerts/rules/${rule.id}`, RULE), await remove()]) {
        expect(res.status).toBe(404);
        expect((await res.json()).error).toMatchObject({ code: 'not_found', retryable: false });
      }
      const list = await (await get(app, '/api/v1/alerts/rules')).json();
      expect(list.rules.map((r: { id: string }) => r.id)).not.toContain(rule.id);
    });

    it.each([
      ['/api/v1/alerts?resolved=yes', 'resolved'],
      [`/api/v1/alerts?server=${'s'.repeat(201)}`, 'server'],
      ['/api/v1/alerts/history?limit=0', 'limit'],
      ['/api/v1/alerts/history?before=soon', 'before'],
      ['/api/v1/alerts/deliveries?limit=201', 'limit'],
      ['/api/v1/alerts/deliveries?rule=', 'rule'],
    ])('refuses %s with a 400 naming the field', async (path, field) => {
      const res = await get(app, path);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: 'invalid_request', field, retryable: false });
    });

    it.each([
      [{ ...RULE, groupBy: 'identity' }, 'groupBy'],
      [{ ...RULE, warning: null, critical: null }, 'critical'],
      [{ ...RULE, metric: 'avoidable_share', warning: 20, critical: null }, 'warning'],
      [{ ...RULE, critical: 2 }, 'critical'],
      [{ ...RULE, resolveThreshold: 5 }, 'resolveThreshold'],
      [{ ...RULE, windowSeconds: 5 }, 'windowSeconds'],
      [{ ...RULE, metric: 'refusals' }, 'metric'],
      [{ ...RULE, targets: [{ type: 'webhook', url: 'file:///etc/passwd' }] }, 'targets.0.url'],
      [{ ...RULE, noData: 'alerting' }, 'noData'],
      [{ ...RULE, colour: 'red' }, ''],
    ])('refuses an invalid rule with a 400 naming the field (%#)', async (body, field) => {
      const res = await postJson(app, '/api/v1/alerts/rules', body);
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error).toMatchObject({ code: 'invalid_request', retryable: false });
      if (field !== '') expect(error.field).toBe(field);
    });

    it('fires per identity on its re-presentations, as GET /identities counts them', async () => {
      const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'gone', arguments: {} } };
      const sends = Array.from({ length: 5 }, (_, i) =>
        clientEvent({ ts: new Date(TEST_NOW - 120_000 + i * 1000).toISOString(), server: 'gamma', request }),
      );
      expect((await postNdjson(app, sends)).status).toBe(200);
      const res = await postJson(app, '/api/v1/alerts/rules', {
        name: 'loop',
        metric: 'identity_representations',
        groupBy: 'identity',
        critical: 4,
        windowSeconds: 600,
        targets: [{ type: 'webhook', url: 'http://127.0.0.1:9/loop' }],
      });
      const { rule } = await res.json();
      await evaluateDue(db.store, TEST_NOW, () => undefined);
      const { alerts } = await (await get(app, '/api/v1/alerts?server=gamma')).json();
      const { identities } = await (
        await get(app, `/api/v1/identities?from=${TEST_NOW - 600_000}&to=${TEST_NOW}`)
      ).json();
      expect(alerts).toMatchObject([{ ruleId: rule.id, state: 'firing', value: 4, group: identities[0].identity }]);
      expect(identities[0]).toMatchObject({ server: 'gamma', represented: 4 });

      // Editing the rule starts its instances over: what was firing is resolved, and the receiver is told. The
      // answer's targets, sent back as they are, keep their saved URLs.
      const { id, createdAt, updatedAt, nextEvalAt, lastEvalAt, lastError, ...definition } = rule;
      const renamed = await putJson(app, `/api/v1/alerts/rules/${id}`, { ...definition, name: 'loop, renamed' });
      expect(renamed.status).toBe(200);
      const { deliveries } = await (await get(app, `/api/v1/alerts/deliveries?rule=${rule.id}`)).json();
      expect(deliveries.map((d: { notice: { status: string; rule: { name: string } } }) => d.notice)).toMatchObject([
        { status: 'resolved', rule: { name: 'loop' } },
        { status: 'firing', rule: { name: 'loop' } },
      ]);
      expect((await (await get(app, '/api/v1/alerts?server=gamma')).json()).alerts).toEqual([]);
      expect((await renamed.json()).rule.targets).toEqual(rule.targets);
    });

    it('reads, per identity, only the identities that can move the rule and the exact values of its alerts', async () => {
      // On delta: one identity sent 6 times (5 re-presentations), one 3 times, 40 twice; the rule fires at 4.
      const call = (ts: number, q: string) =>
        clientEvent({
          ts: new Date(ts).toISOString(),
          server: 'delta',
          request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { q } } },
        });
      const loop = Array.from({ length: 6 }, (_, i) => call(TEST_NOW - 301_000 + i * 60_000, 'loop'));
      const twice = Array.from({ length: 40 }, (_, i) => [
        call(TEST_NOW - 200_000, `q${i}`),
        call(TEST_NOW - 1000, `q${i}`),
      ]);
      const thrice = [0, 1, 2].map((i) => call(TEST_NOW - 100_000 + i * 1000, 'thrice'));
      expect((await postNdjson(app, [...loop, ...twice.flat(), ...thrice])).status).toBe(200);
      const res = await postJson(app, '/api/v1/alerts/rules', {
        name: 'delta loop',
        metric: 'identity_representations',
        groupBy: 'identity',
        scope: { server: 'delta' },
        critical: 4,
        windowSeconds: 600,
        keepFiringForSeconds: 0,
      });
      const { rule } = await res.json();
      const everyGroup = await readMetric(db.store, storeReads(db.store), rule, TEST_NOW);
      expect(everyGroup).toHaveLength(42);
      const narrowed = await roundReader(db.store, TEST_NOW)({ ...rule, narrow: await narrowingOf(db.store, rule) });
      const loopGroup = everyGroup.find((group) => group.value === 5);
      expect(narrowed).toEqual([loopGroup]);

      await evaluateDue(db.store, TEST_NOW, () => undefined);
      const { alerts } = await (await get(app, '/api/v1/alerts?server=delta')).json();
      expect(alerts.filter((alert: { ruleId: string }) => alert.ruleId === rule.id)).toMatchObject([
        { state: 'firing', value: 5, group: loopGroup?.group },
      ]);
      // 530 s later the window holds the loop's last two sends: below the threshold, yet the alert
      // resolves with the value it has (1), not as a group the reading left out (0).
      const later = TEST_NOW + 530_000;
      expect(await evaluateDue(db.store, later, () => undefined)).toBeGreaterThan(0);
      const { history } = await (await get(app, `/api/v1/alerts/history?rule=${rule.id}`)).json();
      expect(history[0]).toMatchObject({ toState: 'resolved', value: 1 });
    });

    it('reads the re-sent identities once a round per grouping, and the storms once whatever the grouping', async () => {
      let reads = 0;
      const counted: SqlRunner = {
        dialect: db.store.dialect,
        all: (query) => {
          reads++;
          return db.store.all(query);
        },
        run: (query) => db.store.run(query),
      };
      const rule = (metric: Metric, groupBy: GroupBy) => ({ metric, groupBy, windowSeconds: 600, scope: {} });
      // Where retention's horizon lies is read once a round as well, whatever the round reads.
      reads = 0;
      await keptData(counted);
      const horizon = reads;
      for (const metric of ['identity_representations', 'probe_storm_size'] as const) {
        const read = roundReader(counted, TEST_NOW);
        const groupBys = METRIC_INFO[metric].groupBys.filter((groupBy) => groupBy !== 'server');
        reads = 0;
        for (const groupBy of groupBys) {
          // Each grouping reads what a reading alone reads, from the round's one read of the store.
          expect(await read(rule(metric, groupBy))).toEqual(
            await readMetric(db.store, storeReads(db.store), rule(metric, groupBy), TEST_NOW),
          );
        }
        expect(groupBys.length, metric).toBeGreaterThan(1);
        // The storms' reading first asks whether the storms of earlier events are built: one more read. The sends
        // are read per grouping, each reduced in the store to the rows that grouping keeps, after one look for the
        // window's blocks of packed events (db/queries/cold-events.ts).
        expect(reads, metric).toBe(
          horizon + (metric === 'probe_storm_size' ? 1 + groupBys.length : 2 * groupBys.length),
        );
      }
    });

    it('ships the three default rules once; a deleted default stays deleted', async () => {
      const fresh = await kind.open();
      try {
        await seedDefaultRules({ ctx: { db: fresh.store, now: TEST_NOW } });
        const freshApp = createTestApp(fresh.store);
        const { rules } = await (await get(freshApp, '/api/v1/alerts/rules')).json();
        expect(rules.map((r: { metric: string }) => r.metric).sort()).toEqual([
          'avoidable_share',
          'identity_representations',
          'retries_after_refusal',
        ]);
        const identity = rules.find((r: { metric: string }) => r.metric === 'identity_representations');
        expect(identity).toMatchObject({ critical: 40, windowSeconds: 600, groupBy: 'identity' });
        await freshApp.request(`/api/v1/alerts/rules/${identity.id}`, { method: 'DELETE', headers: HOST });
        await seedDefaultRules({ ctx: { db: fresh.store, now: TEST_NOW + MIN } });
        const after = await (await get(freshApp, '/api/v1/alerts/rules')).json();
        expect(after.rules).toHaveLength(2);
      } finally {
        await fresh.dispose();
      }
    });
  });
});

describe.each(STORE_KINDS)('alert evaluation on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    let ruleId: string;
    const log: string[] = [];
    beforeAll(async () => {
      db = await kind.open();
      app = createTestApp(db.store, ALLOW);
      // alpha: 5 refusals in the 10 minutes before TEST_NOW; beta: 1.
      const ingest = await postNdjson(app, [
        ...refusals(5, TEST_NOW - 5 * MIN),
        ...refusals(1, TEST_NOW - 5 * MIN, 'beta'),
      ]);
      expect(ingest.status).toBe(200);
      const res = await postJson(app, '/api/v1/alerts/rules', RULE);
      ruleId = (await res.json()).rule.id;
    });
    afterAll(async () => db.dispose());

    const alerts = async (query = '') => (await (await get(app, `/api/v1/alerts${query}`)).json()).alerts;
    const history = async () => (await (await get(app, `/api/v1/alerts/history?rule=${ruleId}`)).json()).history;
    const deliveries = async () =>
      (await (await get(app, `/api/v1/alerts/deliveries?rule=${ruleId}`)).json()).deliveries;

    it('goes pending, then fires after the pending period, with one notification queued', async () => {
      expect(await evaluateDue(db.store, TEST_NOW, (m) => log.push(m))).toBe(1);
      expect(await alerts()).toMatchObject([{ ruleId, group: 'alpha', server: 'alpha', state: 'pending', value: 5 }]);
      // Not due again before its interval: nothing happens.
      expect(await evaluateDue(db.store, TEST_NOW + 30_000, (m) => log.push(m))).toBe(0);
      expect(await evaluateDue(db.store, TEST_NOW + MIN, (m) => log.push(m))).toBe(1);
      expect(await alerts('?server=alpha')).toMatchObject([
        { state: 'firing', severity: 'warning', threshold: 3, ruleName: RULE.name },
      ]);
      expect(await alerts('?server=beta')).toEqual([]);
      expect((await history()).map((h: { toState: string }) => h.toState)).toEqual(['firing', 'pending']);
      const queued = await deliveries();
      expect(queued).toHaveLength(1);
      expect(queued[0]).toMatchObject({
        status: 'pending',
        target: { type: 'webhook', host: '127.0.0.1:9', secretSet: true },
      });
      expect(JSON.stringify(queued)).not.toContain('/hook');
      expect(queued[0].notice).toMatchObject({
        version: 1,
        status: 'firing',
        severity: 'warning',
        group: { by: 'server', value: 'alpha' },
        value: 5,
        threshold: 3,
        rule: { id: ruleId, metric: 'refusal_count' },
      });
      expect(log).toEqual([]);
    });

    it('takes each round once, even with two evaluators at the same moment', async () => {
      const counts = await Promise.all([
        evaluateDue(db.store, TEST_NOW + 2 * MIN, () => undefined),
        evaluateDue(db.store, TEST_NOW + 2 * MIN, () => undefined),
      ]);
      expect(counts.sort()).toEqual([0, 1]);
    });

    it('neither repeats the notification while firing nor after a restart, and resolves once the window is clear', async () => {
      // A "restart" is nothing but a new evaluator over the same store.
      await evaluateDue(db.store, TEST_NOW + 3 * MIN, () => undefined);
      expect(await deliveries()).toHaveLength(1);
      // The refusals were sent between -5 and -4.3 minutes: a 10-minute window ending at +6 minutes holds none.
      await evaluateDue(db.store, TEST_NOW + 6 * MIN, () => undefined);
      expect(await alerts()).toEqual([]);
      expect(await alerts('?resolved=1')).toMatchObject([{ state: 'resolved', group: 'alpha' }]);
      const notices = (await deliveries()).map((d: { notice: { status: string } }) => d.notice.status);
      expect(notices).toEqual(['resolved', 'firing']);
    });

    it('previews what the rule would have done over a past range', async () => {
      const res = await postJson(app, '/api/v1/alerts/rules/preview', {
        rule: { ...RULE, pendingSeconds: 0 },
        from: TEST_NOW - 60 * MIN,
        to: TEST_NOW + 30 * MIN,
      });
      expect(res.status).toBe(200);
      const preview = await res.json();
      expect(preview.points.length).toBeGreaterThan(10);
      expect(preview.points.length).toBeLessThanOrEqual(96);
      const alpha = preview.series.find((s: { group: string }) => s.group === 'alpha');
      expect(Math.max(...alpha.values)).toBe(5);
      const fired = preview.transitions.filter((t: { to: string; group: string }) => t.group === 'alpha');
      expect(fired.map((t: { to: string }) => t.to)).toEqual(['firing', 'resolved']);
      expect(preview.notifications).toBe(2);
    });

    it('refuses a preview of an unbounded range', async () => {
      const res = await postJson(app, '/api/v1/alerts/rules/preview', { rule: RULE, from: 0, to: TEST_NOW });
      expect(res.status).toBe(400);
      expect((await res.json()).error.field).toBe('from');
    });

    it('passes over a paused rule: no reading, no state, but its place in the schedule moves on', async () => {
      const res = await postJson(app, '/api/v1/alerts/rules', {
        ...RULE,
        name: 'paused',
        enabled: false,
        // Were it evaluated, this would fire: the refusals are inside the hour, and nothing is pending.
        windowSeconds: 3600,
        pendingSeconds: 0,
      });
      const paused = (await res.json()).rule;
      const at = TEST_NOW + 7 * MIN;
      await evaluateDue(db.store, at, () => undefined);
      const after = (await (await get(app, `/api/v1/alerts/rules/${paused.id}`)).json()).rule;
      expect(after.nextEvalAt).toBe(at + RULE.intervalSeconds * 1000);
      const { history } = await (await get(app, `/api/v1/alerts/history?rule=${paused.id}`)).json();
      expect(history).toEqual([]);
      expect((await alerts('?resolved=1')).filter((a: { ruleId: string }) => a.ruleId === paused.id)).toEqual([]);
    });

    it('reads a group whose traffic stopped as a count of 0, so a "fewer than" rule keeps firing', async () => {
      const res = await postJson(app, '/api/v1/alerts/rules', {
        ...RULE,
        name: 'too few refusals',
        comparator: '<',
        warning: null,
        critical: 3,
        pendingSeconds: 0,
      });
      const few = (await res.json()).rule;
      await evaluateDue(db.store, TEST_NOW, () => undefined);
      const firing = async () =>
        (await alerts()).filter((a: { ruleId: string }) => a.ruleId === few.id).map((a: { group: string }) => a.group);
      expect(await firing()).toEqual(['beta']);
      // Ten minutes on, neither server has a refusal in the window: both read 0, both fire.
      await evaluateDue(db.store, TEST_NOW + 10 * MIN, () => undefined);
      expect((await firing()).sort()).toEqual(['alpha', 'beta']);
      await app.request(`/api/v1/alerts/rules/${few.id}`, { method: 'DELETE', headers: HOST });
    });

    it('keeps the history and the queued notifications of a deleted rule', async () => {
      await app.request(`/api/v1/alerts/rules/${ruleId}`, { method: 'DELETE', headers: HOST });
      expect((await history()).map((h: { toState: string }) => h.toState)).toEqual(['resolved', 'firing', 'pending']);
      expect(await deliveries()).toHaveLength(2);
    });
  });
});
