import { type SQL, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadAnalysis } from '../../api/services/analysis/load.ts';
import { stormSummary } from '../../api/services/analysis/storm-ids.ts';
import { FOLD_EVENTS, foldQueued } from '../../api/services/fold.ts';
import { buildMissingStorms, PARTITIONS_PER_STEP } from '../../api/services/gate-maintenance.ts';
import { ingestBatch } from '../../api/services/ingest.ts';
import { orderedStormRows, stormCounts } from '../../db/queries/storms.ts';
import type { Store } from '../../db/runner.ts';
import { shuffled } from '../../shared/analysis/fixtures.ts';
import { StormStateCache } from '../../shared/analysis/storm-state-cache.ts';
import { decodeStormState } from '../../shared/analysis/storm-state-codec.ts';
import { detectStorms } from '../../shared/analysis/storms.ts';
import { createTestApp, get, postNdjson, putJson, TEST_NOW, type TestApp } from '../support/app.ts';
import { BASE_TS, clientEvent, rpcError } from '../support/events.ts';
import { replayMigration } from '../support/migrations.ts';
import { queryPlan } from '../support/plans.ts';
import { openTempSqlite, STORE_KINDS, type TestStore } from '../support/stores.ts';

const RANGE = `from=0&to=${BASE_TS + 86_400_000}`;
const ALL_TIME = `${RANGE}&limit=1000`;
const DECLARED = { endpoints: [{ method: 'POST', path: '/mcp' }] };

/**
 * Half an hour of two clients on `docs`: probes of undeclared paths in bursts, 503s retried on /mcp, and successes
 * between them, some sharing a timestamp. Deterministic, so a failure reproduces.
 */
function traffic(prefix: string): Record<string, unknown>[] {
  let state = 11;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const paths = ['/mcp/sse', '/mcp/a2a/', '/v1/mcp'];
  const events: Record<string, unknown>[] = [];
  let ms = 0;
  for (let i = 0; i < 240; i++) {
    ms += [0, 1000, 2000, 4000, 15_000, 90_000][next(6)] ?? 1000;
    const roll = next(10);
    const base = {
      id: `${prefix}-${i}`,
      ts: BASE_TS + ms,
      client: next(3) === 0 ? 'agent-b' : 'agent-a',
      server: 'docs',
    };
    if (roll < 4) {
      events.push(clientEvent({ ...base, http: { method: 'POST', path: paths[next(3)], status: 404 } }));
    } else if (roll < 6) {
      events.push(clientEvent({ ...base, http: { method: 'POST', path: '/mcp', status: 503 }, response: undefined }));
    } else if (roll < 7) {
      events.push(clientEvent({ ...base, response: rpcError(-32602, 'Unknown tool') }));
    } else {
      events.push(clientEvent(base));
    }
  }
  return events;
}

/** What the detector finds in every stored event: the one home of what a storm is. */
async function detectedIn(store: Store) {
  const { events, verdicts } = await loadAnalysis(store, { from: 0, to: BASE_TS + 86_400_000 });
  return detectStorms(events, verdicts).map(({ timeline: _timeline, ...storm }) => stormSummary(storm));
}

describe.each(STORE_KINDS)('storms kept at ingest on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
      await putJson(app, '/api/v1/servers/docs/discovery', DECLARED);
    });
    afterEach(async () => db.dispose());

    const listed = async (query = ALL_TIME) => (await (await get(app, `/api/v1/storms?${query}`)).json()).storms;

    it('lists what the detector finds in the stored events, whatever order and batching they came in', async () => {
      const events = traffic('o');
      const mixed = shuffled(events, 3);
      for (let start = 0; start < mixed.length; start += 37) {
        expect((await postNdjson(app, mixed.slice(start, start + 37))).status).toBe(200);
      }
      const storms = await listed();
      expect(storms.map((s: { kind: string }) => s.kind)).toEqual(
        expect.arrayContaining(['probe_storm', 'retry_loop']),
      );
      expect(storms).toEqual(await detectedIn(db.store));
    });

    it('continues storms across batches that arrive in time order', async () => {
      const events = traffic('c');
      for (let start = 0; start < events.length; start += 9) {
        expect((await postNdjson(app, events.slice(start, start + 9))).status).toBe(200);
      }
      expect(await listed()).toEqual(await detectedIn(db.store));
    });

    it('lists what the detector finds when two servers fold the database in turn, each keeping the states it saved', async () => {
      // Each server's kept states go stale at the other's folds: only the state the store holds tells.
      const servers = [new StormStateCache(2 ** 20), new StormStateCache(2 ** 20)];
      const events = traffic('t');
      for (let start = 0; start < events.length; start += 9) {
        const batch = events.slice(start, start + 9).map((value, i) => ({ line: i + 1, value }));
        expect((await ingestBatch(db.store, batch)).accepted).toBe(batch.length);
        await foldQueued(db.store, FOLD_EVENTS, undefined, undefined, servers[(start / 9) % 2]);
      }
      expect(await listed()).toEqual(await detectedIn(db.store));
    });

    it('steps a batch over more partitions than one step holds, a step of saved states at a time', async () => {
      // Each partition's saved state holds its last 5 minutes of attempts: a fold holds a step's worth of them.
      const reads: number[] = [];
      const recording: Store = {
        ...db.store,
        transaction: (work) =>
          db.store.transaction((tx) =>
            work({
              ...tx,
              async all<T>(query: SQL) {
                const rows = await tx.all<T>(query);
                const first = rows[0];
                if (typeof first === 'object' && first !== null && 'storms' in first && 'frontierTs' in first) {
                  reads.push(rows.length);
                }
                return rows;
              },
            }),
          ),
      };
      app = createTestApp(recording);
      const copies = Math.ceil((PARTITIONS_PER_STEP + 30) / 2);
      const events = traffic('s')
        .slice(0, 80)
        .flatMap((event) =>
          Array.from({ length: copies }, (_, k) => ({
            ...event,
            id: `${event.id}-${k}`,
            client: `${event.client}-${k}`,
          })),
        );
      const batch = Math.ceil(events.length / 4);
      for (let start = 0; start < events.length; start += batch) {
        expect((await postNdjson(app, events.slice(start, start + batch))).status).toBe(200);
      }
      expect(Math.max(...reads)).toBeLessThanOrEqual(PARTITIONS_PER_STEP);
      expect(reads.length).toBeGreaterThan(3);
      const storms = await listed();
      expect(new Set(storms.map((s: { client: string }) => s.client)).size).toBeGreaterThan(PARTITIONS_PER_STEP);
      expect(storms).toEqual(await detectedIn(db.store));
    });

    it("writes a partition's storms again under their ids of id and time once a batch touches it (storm_ids)", async () => {
      const events = traffic('u');
      const half = events.length / 2;
      expect((await postNdjson(app, events.slice(0, half))).status).toBe(200);
      // The ids an earlier release gave them, open storms among them: the migration has each partition replayed.
      await db.store.run(sql`UPDATE storms SET id = 'before-' || id`);
      await replayMigration(db.store, kind.name, 'storm_ids', 'UPDATE gate_partitions');
      expect((await postNdjson(app, events.slice(half))).status).toBe(200);
      const storms = await listed();
      expect(storms.some((s: { id: string }) => s.id.startsWith('before-'))).toBe(false);
      expect(storms).toEqual(await detectedIn(db.store));
    });

    it('lists a storm that overlaps the window whole, and none that ended before it', async () => {
      await postNdjson(app, traffic('w'));
      const all = await listed();
      const probe = all.find((s: { kind: string; attempts: number }) => s.kind === 'probe_storm' && s.attempts > 6);
      const middle = Math.floor((probe.firstTs + probe.lastTs) / 2);
      const inside = await listed(`from=${middle}&to=${middle + 1}`);
      expect(inside).toContainEqual(probe);
      expect(inside.every((s: { lastTs: number; firstTs: number }) => s.lastTs >= middle && s.firstTs <= middle)).toBe(
        true,
      );
      const after = await listed(`from=${probe.lastTs + 1}&to=${probe.lastTs + 2}`);
      expect(after).not.toContainEqual(probe);
    });

    it('follows a reclassification: 404s a discovery document makes refusals form a probe storm', async () => {
      const events = traffic('r').map((e) => ({ ...e, server: 'fresh' }));
      await postNdjson(app, events);
      // Without a document a 404 is ambiguous, not a refusal: no probe storm.
      expect((await listed()).filter((s: { kind: string }) => s.kind === 'probe_storm')).toEqual([]);
      await putJson(app, '/api/v1/servers/fresh/discovery', DECLARED);
      const after = await listed();
      expect(after.filter((s: { kind: string }) => s.kind === 'probe_storm').length).toBeGreaterThan(0);
      expect(after).toEqual(await detectedIn(db.store));
    });

    it('builds the storms of events stored before storms were kept, once, and says so meanwhile', async () => {
      await postNdjson(app, traffic('b'));
      const before = await listed();
      expect(before.length).toBeGreaterThan(0);
      // What migration 0009 leaves in a store that had events: no storm rows, no tracker state, nothing built.
      await db.store.run(sql`DELETE FROM storms`);
      await db.store.run(sql`UPDATE gate_partitions SET storms = NULL`);
      await db.store.run(sql`DELETE FROM settings WHERE key = 'storms_built'`);
      const building = await (await get(app, `/api/v1/storms?${ALL_TIME}`)).json();
      expect(building).toMatchObject({ storms: [], complete: false });
      // An alert on storm sizes waits rather than judge a partial list; a retry can help, in 30 s.
      const preview = await app.request('/api/v1/alerts/rules/preview', {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: '127.0.0.1:7700' },
        body: JSON.stringify({
          rule: { name: 'probes', metric: 'probe_storm_size', groupBy: 'client', warning: 5 },
          from: TEST_NOW - 3_600_000,
          to: TEST_NOW,
        }),
      });
      expect(preview.status).toBe(503);
      expect(preview.headers.get('retry-after')).toBe('30');
      expect((await preview.json()).error).toMatchObject({ code: 'unavailable', retryable: true });
      expect(await buildMissingStorms(db.store)).toBe(2);
      expect(await (await get(app, `/api/v1/storms?${ALL_TIME}`)).json()).toMatchObject({
        storms: before,
        complete: true,
      });
      expect(await buildMissingStorms(db.store)).toBe(0);
    });

    it('ranks, limits and counts: active storms first, then the most avoidable; or the newest first', async () => {
      await postNdjson(app, traffic('k'));
      // A small retry loop a minute before now: active, though others wasted more.
      const loop = [120, 90, 60].map((ago, i) =>
        clientEvent({
          id: `k-live-${i}`,
          ts: TEST_NOW - ago * 1000,
          client: 'agent-live',
          server: 'docs',
          response: rpcError(-32602, 'Unknown tool'),
        }),
      );
      await postNdjson(app, loop);
      const all = (await (await get(app, `/api/v1/storms?${ALL_TIME}`)).json()).storms;
      const ranked = await (await get(app, `/api/v1/storms?${RANGE}&sort=rank&limit=3`)).json();
      expect(ranked.total).toBe(all.length);
      expect(ranked.active).toBe(1);
      expect(ranked.storms).toHaveLength(3);
      expect(ranked.storms[0]).toMatchObject({ client: 'agent-live', kind: 'retry_loop', attempts: 3 });
      const avoidable = all
        .filter((s: { client: string }) => s.client !== 'agent-live')
        .map((s: { avoidable: number }) => s.avoidable)
        .sort((a: number, b: number) => b - a);
      expect(ranked.storms.slice(1).map((s: { avoidable: number }) => s.avoidable)).toEqual(avoidable.slice(0, 2));
      const newest = (await (await get(app, `/api/v1/storms?${RANGE}&sort=newest&limit=2`)).json()).storms;
      const starts = all.map((s: { firstTs: number }) => s.firstTs).sort((a: number, b: number) => b - a);
      expect(newest.map((s: { firstTs: number }) => s.firstTs)).toEqual(starts.slice(0, 2));
      const refused = await get(app, `/api/v1/storms?${RANGE}&sort=worst`);
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toMatchObject({ code: 'invalid_request', field: 'sort', retryable: false });
    });

    it('counts the storms that ran in a window that cuts some, ends before others begin, or is of one server', async () => {
      await postNdjson(app, traffic('w'));
      type Listed = { firstTs: number; lastTs: number; server: string };
      const all: Listed[] = await listed();
      const times = all.flatMap((s) => [s.firstTs, s.lastTs]).sort((a, b) => a - b);
      const cuts = [1, 3, 5].map((i) => times[Math.floor((i * times.length) / 6)] as number);
      expect(new Set(cuts).size).toBe(3);
      let cutShort = 0;
      for (const [from, to] of [
        [cuts[0], cuts[1]],
        [cuts[1], cuts[2]],
        [cuts[0], cuts[2]],
        [(cuts[1] as number) + 1, (cuts[1] as number) + 2],
      ] as [number, number][]) {
        for (const server of [undefined, all[0]?.server]) {
          const expected = all.filter((s) => s.lastTs >= from && s.firstTs < to && (!server || s.server === server));
          cutShort += all.length - expected.length;
          const path = `/api/v1/storms?from=${from}&to=${to}${server ? `&server=${server}` : ''}&limit=1`;
          expect((await (await get(app, path)).json()).total, path).toBe(expected.length);
        }
      }
      // Some windows leave storms out at either end: what the count subtracts is tried.
      expect(cutShort).toBeGreaterThan(0);
    });

    it('alerts on the probe storm size the list shows, per client', async () => {
      await postNdjson(app, traffic('a'));
      const largest = new Map<string, number>();
      for (const storm of await listed()) {
        if (storm.kind !== 'probe_storm') continue;
        largest.set(storm.client, Math.max(largest.get(storm.client) ?? 0, storm.attempts));
      }
      expect(largest.size).toBe(2);
      const to = BASE_TS + 86_400_000;
      const res = await app.request('/api/v1/alerts/rules/preview', {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: '127.0.0.1:7700' },
        body: JSON.stringify({
          rule: { name: 'probes', metric: 'probe_storm_size', groupBy: 'client', warning: 5, windowSeconds: 86_400 },
          from: to - 3_600_000,
          to,
        }),
      });
      expect(res.status).toBe(200);
      const { series } = await res.json();
      const read = Object.fromEntries(
        series.map((s: { group: string; values: number[] }) => [s.group, s.values.at(-1)]),
      );
      expect(read).toEqual(Object.fromEntries(largest));
    });

    /** A 503 on `path` or a success on `/mcp` from agent-r to docs, `seconds` after BASE_TS, in a batch of its own. */
    const step = (path: string | null, seconds: number) =>
      postNdjson(app, [
        clientEvent({
          id: `run-${seconds}`,
          ts: BASE_TS + seconds * 1000,
          client: 'agent-r',
          server: 'docs',
          ...(path === null
            ? {}
            : { http: { method: 'POST', path, status: 503 }, request: undefined, response: undefined }),
        }),
      ]);
    /** The open runs of agent-r's partition, as its tracker state files them. */
    const runs = async () => {
      const [row] = await db.store.all<{ storms: string | null }>(
        sql`SELECT storms FROM gate_partitions WHERE partition = ${JSON.stringify(['agent-r', 'docs'])}`,
      );
      const state = decodeStormState(row?.storms ?? null);
      return Object.values(state?.sides.client?.runs ?? {}).map((run) => ({ lastTs: run.lastTs }));
    };

    it('keeps a retry run only while the next attempt can still join it', async () => {
      await step('/a', 0);
      await step(null, 30);
      // 30 s on, a second failure of /a would join the run: it stays.
      expect(await runs()).toEqual([{ lastTs: BASE_TS }]);
      await step(null, 61);
      // Past the 60 s loop gap the run is over, though /a was not sent again.
      expect(await runs()).toEqual([]);
      for (const seconds of [70, 75, 80, 85, 90]) await step('/a', seconds);
      // Five more 503s: with the one at 0 s the budget is spent at 80 s (it does not refill with time), so 85 s and
      // 90 s are avoidable, and the five, a gap after the first, are one retry loop of their own.
      expect(await listed()).toMatchObject([
        { kind: 'retry_loop', attempts: 5, avoidable: 2, firstTs: BASE_TS + 70_000 },
      ]);
      expect(await listed()).toEqual(await detectedIn(db.store));
    });

    it('finds every stored storm again by the new definition once migrated (storms_by_sender)', async () => {
      const events = traffic('m');
      const half = events.length / 2;
      expect((await postNdjson(app, events.slice(0, half))).status).toBe(200);
      // Rows and tracker state as an earlier definition left them: an extra storm, other titles, old state.
      await db.store.run(sql`UPDATE storms SET title = 'old', attempts = attempts + 1`);
      await db.store.run(sql`INSERT INTO storms (id, client, server, sent_by, kind, key, paths, attempts, avoidable,
          first_ts, last_ts, first_bucket, first_kind, title)
        VALUES ('retry_loop:old', 'agent-a', 'docs', 'client', 'retry_loop', 'k', '[]', 2, 0, ${BASE_TS}, ${BASE_TS},
          'transient', 'unavailable', 'old')`);
      await db.store.run(sql`UPDATE gate_partitions SET storms = '{"version":1,"loops":{}}'`);
      await replayMigration(db.store, kind.name, 'storms_by_sender', (statement) =>
        /^\s*(--[^\n]*\n\s*)*(DELETE|UPDATE)/.test(statement),
      );
      expect(await listed()).toEqual([]);
      expect(await buildMissingStorms(db.store)).toBe(2);
      expect((await postNdjson(app, events.slice(half))).status).toBe(200);
      expect(await listed()).toEqual(await detectedIn(db.store));
    });

    it('opens a listed storm with its attempts', async () => {
      await postNdjson(app, traffic('d'));
      for (const storm of await listed()) {
        const detail = await (await get(app, `/api/v1/storms/${storm.id}`)).json();
        expect(detail).toMatchObject(storm);
        expect(detail.timeline).toHaveLength(storm.attempts);
      }
    });
  });
});

describe("one server's storms on SQLite", () => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTempSqlite();
  });
  afterAll(async () => db.dispose());

  it('are counted and put in every order from an index, without reading a row', async () => {
    const scope = { from: BASE_TS, to: BASE_TS + 86_400_000, server: 'docs' };
    const plans = [
      await queryPlan(db.store, (runner) => stormCounts(runner, scope, BASE_TS)),
      ...(['first', 'rank', 'newest'] as const).map((order) =>
        // The page's own query, not the one that reads the chosen storms whole.
        queryPlan(db.store, (runner) => orderedStormRows(runner, scope, order, 20, BASE_TS)),
      ),
    ];
    for (const plan of await Promise.all(plans)) {
      expect(plan.map((step) => step.detail).join('\n')).toMatch(/USING COVERING INDEX storms_server_window_idx/);
    }
  });
});
