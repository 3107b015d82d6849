import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shuffled } from '../../shared/analysis/fixtures.ts';
import { createTestApp, get, postNdjson, putJson, type TestApp } from '../support/app.ts';
import { BASE_TS, clientEvent, proxyEvent, rpcError } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/** Seed 000's prober: 22 requests against three undeclared paths, all refused. */
function prober(prefix: string) {
  const paths = ['/mcp/mcp', '/mcp/sse', '/mcp/a2a/'];
  return Array.from({ length: 22 }, (_, i) =>
    clientEvent({
      id: `${prefix}-${i}`,
      ts: BASE_TS + i * 1000,
      client: 'prober-9',
      server: 'docs',
      http: { method: 'POST', path: paths[i % 3], status: 404 },
      request: undefined,
      response: undefined,
      discoveryRead: false,
    }),
  );
}

describe.each(STORE_KINDS)('gate verdicts kept at ingest on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
      await putJson(app, '/api/v1/servers/docs/discovery', { endpoints: [{ method: 'POST', path: '/mcp' }] });
    });
    afterEach(async () => db.dispose());

    async function verdicts() {
      const page = await (await get(app, '/api/v1/events?limit=1000')).json();
      return Object.fromEntries(
        page.events.map((e: { id: string; avoidable: boolean; gateReason: string | null }) => [e.id, e.gateReason]),
      );
    }

    it("marks 19 of seed 000's 22 probes avoidable", async () => {
      await postNdjson(app, prober('p'));
      const stored = await verdicts();
      expect(Object.values(stored).filter((r) => r === 'after_refusal')).toHaveLength(19);
      expect(stored['p-0']).toBeNull();
      expect(stored['p-3']).toBe('after_refusal');
    });

    it('gives the same verdicts whatever order and batching the events arrive in', async () => {
      const events = prober('q');
      const mixed = shuffled(events, 7);
      // Three batches, out of order within and across them.
      await postNdjson(app, mixed.slice(0, 9));
      await postNdjson(app, mixed.slice(9, 15));
      await postNdjson(app, mixed.slice(15));
      const outOfOrder = await verdicts();

      const other = await kind.open();
      try {
        const sortedApp = createTestApp(other.store);
        await putJson(sortedApp, '/api/v1/servers/docs/discovery', { endpoints: [{ method: 'POST', path: '/mcp' }] });
        await postNdjson(sortedApp, events);
        const page = await (await get(sortedApp, '/api/v1/events?limit=1000')).json();
        const sorted = Object.fromEntries(
          page.events.map((e: { id: string; gateReason: string | null }) => [e.id, e.gateReason]),
        );
        expect(outOfOrder).toEqual(sorted);
      } finally {
        await other.dispose();
      }
    });

    it('replays a partition that has lost its saved position, as an upgraded store has', async () => {
      const events = prober('u');
      await postNdjson(app, events.slice(0, 10));
      // Migration 0004 leaves the gate with no saved position and no keys; the refusals must still hold.
      await db.store.run(sql`DELETE FROM gate_partitions`);
      await db.store.run(sql`DELETE FROM gate_keys`);
      await postNdjson(app, events.slice(10));
      const stored = await verdicts();
      expect(Object.values(stored).filter((r) => r === 'after_refusal')).toHaveLength(19);
      await postNdjson(app, [{ ...events[0], id: 'u-again', ts: BASE_TS + 60_000 }]);
      expect((await verdicts())['u-again']).toBe('after_refusal');
    });

    it('gives the same verdicts when two batches of one client and server are ingested at once', async () => {
      const events = prober('r');
      for (let round = 0; round < 3; round++) {
        const ids = events.map((e) => ({ ...e, id: `${e.id}-${round}`, client: `prober-${round}` }));
        await Promise.all([
          postNdjson(
            app,
            ids.filter((_, i) => i % 2 === 0),
          ),
          postNdjson(
            app,
            ids.filter((_, i) => i % 2 === 1),
          ),
        ]);
      }
      const stored = await verdicts();
      for (let round = 0; round < 3; round++) {
        const reasons = Object.entries(stored)
          .filter(([id]) => id.endsWith(`-${round}`))
          .map(([, r]) => r);
        expect(reasons, `round ${round}`).toHaveLength(22);
        expect(
          reasons.filter((r) => r === 'after_refusal'),
          `round ${round}`,
        ).toHaveLength(19);
      }
    });

    it("the third client's three identical calls on a missing record: 1 needed, 2 avoidable", async () => {
      const call = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'docs.get', arguments: { slug: 'gone' } },
      };
      const sends = [0, 1, 2].map((i) =>
        clientEvent({
          id: `t-${i}`,
          ts: BASE_TS + i * 2000,
          client: 'agent-3',
          server: 'docs',
          request: { ...call, id: i + 1 },
          response: rpcError(-32602, 'Unknown record'),
        }),
      );
      await postNdjson(app, sends);
      expect(await verdicts()).toEqual({ 't-0': null, 't-1': 'after_refusal', 't-2': 'after_refusal' });
    });

    it('replays a server when its discovery document changes the buckets', async () => {
      const server = 'fresh-server';
      const probes = [0, 1, 2].map((i) =>
        proxyEvent({
          id: `f-${i}`,
          ts: BASE_TS + i * 1000,
          client: 'c',
          server,
          http: { method: 'POST', path: '/nope', status: 404 },
        }),
      );
      await postNdjson(app, probes);
      // No document: ambiguous, and identical retries after ambiguous are avoidable too.
      expect(await verdicts()).toMatchObject({ 'f-0': null, 'f-1': 'identical_after_ambiguous' });
      await putJson(app, `/api/v1/servers/${server}/discovery`, { endpoints: [{ path: '/mcp' }] });
      expect(await verdicts()).toMatchObject({ 'f-0': null, 'f-1': 'after_refusal', 'f-2': 'after_refusal' });
    });

    it('reads the wait of an answer an override makes a throttle, as a fresh ingest would', async () => {
      const server = 'quota-server';
      const answer = { http: { method: 'POST', path: '/mcp', status: 200, retryAfter: 60 } };
      const calls = [0, 5].map((second, i) =>
        clientEvent({
          id: `q-${i}`,
          ts: BASE_TS + second * 1000,
          client: 'c',
          server,
          request: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: `t${i}`, arguments: {} } },
          response: rpcError(-32042, 'quota'),
          ...answer,
        }),
      );
      await postNdjson(app, calls);
      expect(await verdicts()).toMatchObject({ 'q-1': null });
      // Now -32042 means "throttled": the second call came 5 s into a 60 s Retry-After.
      await putJson(app, `/api/v1/servers/${server}/overrides`, {
        overrides: [{ rpcCode: -32042, bucket: 'throttled', kind: 'rate_limited' }],
      });
      expect(await verdicts()).toMatchObject({ 'q-0': null, 'q-1': 'before_retry_after' });
    });
  });
});
