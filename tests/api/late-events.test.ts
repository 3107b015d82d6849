import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replayDuePartitions } from '../../api/services/gate-maintenance.ts';
import { duePending, markPending, takePending } from '../../db/queries/gate-pending.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { BASE_TS, clientEvent, rpcError } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * Late events (hardening finding 9): a batch older than what a large partition holds must not replay that
 * partition's history inside the batch's transaction, where every other batch waits behind it. The replay runs
 * behind the commit, the API says how far the verdicts trail, and once it has run every count is what one in-order
 * ingest of the same events gives.
 */

const INLINE_MAX = 50;
const RANGE = `from=${new Date(BASE_TS - 3_600_000).toISOString()}&to=${new Date(BASE_TS + 86_400_000).toISOString()}`;

/** A tools/call of agent-7 at minute `minute`: `name` picks the request (its identity), `refused` its answer. */
function call(minute: number, name: string, refused = false) {
  return clientEvent({
    id: `late-${name}-${minute}`,
    ts: new Date(BASE_TS + minute * 60_000).toISOString(),
    request: { jsonrpc: '2.0', id: minute, method: 'tools/call', params: { name, arguments: {} } },
    ...(refused && { response: rpcError(-32601, 'Method not found') }),
  });
}

/** 120 calls a minute apart, each request sent twice: nothing avoidable, until a refusal comes in late. */
const HISTORY = Array.from({ length: 120 }, (_, i) => call(10 + i, `tool-${i % 60}`));
/** Earlier than all of them: tool-3 was refused as not supported, so its later sends were avoidable. */
const LATE = [call(1, 'tool-3', true)];
/** After all of them. */
const APPENDED = [call(200, 'tool-3'), call(201, 'tool-4')];

describe.each(STORE_KINDS)('late events on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store, { inlineReplayMax: INLINE_MAX });
    });
    afterEach(async () => db.dispose());

    async function health() {
      const { pendingPartitions, lagMs } = (await (await get(app, '/api/v1/health')).json()).analysis;
      return { pendingPartitions, lagMs } as { pendingPartitions: number; lagMs: number };
    }

    async function avoidable(target: TestApp) {
      const { clients } = await (await get(target, `/api/v1/clients?${RANGE}`)).json();
      return clients.find((c: { client: string }) => c.client === 'agent-7')?.avoidable as number;
    }

    async function flags(target: TestApp) {
      const page = await (await get(target, '/api/v1/events?limit=1000&client=agent-7')).json();
      return Object.fromEntries(page.events.map((e: { id: string; avoidable: boolean }) => [e.id, e.avoidable]));
    }

    it('answers a late batch without replaying a large partition, and replays it behind the commit', async () => {
      for (let i = 0; i < HISTORY.length; i += 40) {
        expect((await postNdjson(app, HISTORY.slice(i, i + 40))).status).toBe(200);
      }
      expect(await health()).toEqual({ pendingPartitions: 0, lagMs: 0 });
      expect(await avoidable(app)).toBe(0);

      expect((await postNdjson(app, LATE)).status).toBe(200);
      // Stored and counted at once; its verdicts wait for the replay.
      expect((await health()).pendingPartitions).toBe(1);
      expect(await avoidable(app)).toBe(0);
      // The partition's own traffic goes on meanwhile without making the replay stale.
      expect((await postNdjson(app, APPENDED)).status).toBe(200);
      expect((await (await get(app, `/api/v1/summary?${RANGE}`)).json()).overall.total).toBe(
        HISTORY.length + LATE.length + APPENDED.length,
      );

      expect(await replayDuePartitions(db.store)).toBe(1);
      expect(await health()).toEqual({ pendingPartitions: 0, lagMs: 0 });

      // The same events in time order, on a store that never deferred anything.
      const fresh = await kind.open();
      try {
        const inOrder = createTestApp(fresh.store);
        expect((await postNdjson(inOrder, [...LATE, ...HISTORY, ...APPENDED])).status).toBe(200);
        expect(await avoidable(app)).toBe(await avoidable(inOrder));
        expect(await avoidable(app)).toBeGreaterThan(0);
        expect(await flags(app)).toEqual(await flags(inOrder));
      } finally {
        await fresh.dispose();
      }
      // And the partition continues from the replayed state, in the batch's transaction again.
      expect((await postNdjson(app, [call(300, 'tool-3')])).status).toBe(200);
      expect(await health()).toEqual({ pendingPartitions: 0, lagMs: 0 });
      expect((await flags(app))['late-tool-3-300']).toBe(true);
    });

    it('replays a small partition inside the batch, as before', async () => {
      expect((await postNdjson(app, HISTORY.slice(0, INLINE_MAX - 5))).status).toBe(200);
      expect((await postNdjson(app, [call(1, 'tool-3', true)])).status).toBe(200);
      expect((await health()).pendingPartitions).toBe(0);
      expect((await flags(app))['late-tool-3-13']).toBe(true);
    });

    it('does not write a replay computed before its partition changed under it', async () => {
      const partition = JSON.stringify(['agent-7', 'release-notes']);
      await markPending(db.store, [{ partition, reset: false }], Date.now());
      const [due] = await duePending(db.store, 10);
      // Appends keep the token (the replay steps on over them); a reclassification or a shadowed record does not.
      await markPending(db.store, [{ partition, reset: false }], Date.now());
      await markPending(db.store, [{ partition, reset: true }], Date.now());
      const take = (replay: typeof due) =>
        db.store.transaction((tx) => takePending(tx, replay as NonNullable<typeof replay>));
      expect(await take(due)).toBe(false);
      const [again] = await duePending(db.store, 10);
      expect(again?.since).toBe(due?.since);
      expect(await take(again)).toBe(true);
      expect(await duePending(db.store, 10)).toEqual([]);
    });

    it('refuses ingest with 503 and Retry-After while the analysis trails past --max-analysis-lag, then takes it', async () => {
      const bounded = createTestApp(db.store, { inlineReplayMax: INLINE_MAX, maxAnalysisLagMs: 30_000 });
      expect((await postNdjson(bounded, HISTORY)).status).toBe(200);
      const partition = JSON.stringify(['agent-7', 'release-notes']);
      await markPending(db.store, [{ partition, reset: true }], Date.now() - 20_000);
      // Behind, but within the bound: taken.
      expect((await postNdjson(bounded, [call(300, 'tool-1')])).status).toBe(200);

      await db.store.run(sql`UPDATE gate_pending SET since = ${Date.now() - 60_000}`);
      const refused = await postNdjson(bounded, [call(301, 'tool-2')]);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('10');
      const { error } = await refused.json();
      expect(error).toMatchObject({ code: 'analysis_behind', retryable: true, retryAfterSeconds: 10 });
      expect(error.message).toMatch(/^the analysis is 6\d s behind/);
      const health = (await (await get(bounded, '/api/v1/health')).json()).analysis;
      expect(health).toMatchObject({ pendingPartitions: 1, maxLagMs: 30_000 });
      expect(health.lagMs).toBeGreaterThan(30_000);
      // Reads go on; nothing of the refused batch was stored.
      const page = await (await get(bounded, '/api/v1/events?limit=1000&client=agent-7')).json();
      expect(page.events.map((e: { id: string }) => e.id)).not.toContain('late-tool-2-301');

      expect(await replayDuePartitions(db.store)).toBe(1);
      expect((await postNdjson(bounded, [call(301, 'tool-2')])).status).toBe(200);
    });
  });
});
