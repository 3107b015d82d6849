import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DENIALS_LISTED } from '../../api/services/analysis/denials.ts';
import { foldAll } from '../../api/services/fold.ts';
import { analysed, createTestApp, get, postJson, postNdjson, putJson, type TestApp } from '../support/app.ts';
import { CORPORA, corpusText, expectedOf } from '../support/corpus.ts';
import { BASE_TS, clientEvent, rpcError } from '../support/events.ts';
import { inBetweenScenario } from '../support/in-between.ts';
import { replayMigration } from '../support/migrations.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/** Seed 002's denial of a tools/call: not retryable, lapsing at `resetsAt` when given. */
function denial(seconds: number, session: string, resetsAt?: number) {
  const data = {
    reason: 'policy.budget_exhausted',
    retryable: false,
    ...(resetsAt === undefined ? {} : { resetsAt: new Date(resetsAt).toISOString() }),
  };
  return clientEvent({
    ts: new Date(BASE_TS + seconds * 1000).toISOString(),
    session,
    response: rpcError(-32003, 'Sampling denied: budget exhausted', data),
  });
}

function granted(seconds: number, session: string) {
  return clientEvent({ ts: new Date(BASE_TS + seconds * 1000).toISOString(), session });
}

const RANGE = `from=${BASE_TS - 3_600_000}&to=${BASE_TS + 3_600_000}`;

describe.each(STORE_KINDS)('GET /api/v1/denials on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function denials(query = RANGE) {
      const res = await get(app, `/api/v1/denials?${query}`);
      expect(res.status).toBe(200);
      return res.json();
    }

    it('finds the two denials of the corpus that did not hold, each across a new session', async () => {
      for (const corpus of CORPORA) {
        const res = await postNdjson(app, corpusText(corpus, 'client.ndjson').trim().split('\n'));
        expect(res.status).toBe(200);
      }
      const answer = await denials('from=2026-12-01&to=2026-12-03');
      const expected = (expectedOf('mcp-python').scenarios.represent as unknown as Record<string, unknown>)
        .denialsThatDidNotHold as {
        identity: string;
        refused: string;
        laterAnswered: string;
        newSessionInBetween: boolean;
      }[];
      expect(answer.total).toBe(expected.length);
      const found = answer.items.map(
        (d: { identity: string; refusal: { id: string }; answer: { id: string }; newSession: boolean }) => ({
          identity: d.identity,
          refused: d.refusal.id,
          laterAnswered: d.answer.id,
          newSessionInBetween: d.newSession,
        }),
      );
      expect(
        found.sort((a: { refused: string }, b: { refused: string }) => a.refused.localeCompare(b.refused)),
      ).toEqual(expected);
      expect(answer.byClient).toEqual({ represent: 2 });
      expect(answer.byServer).toEqual({ 'release-desk': 2 });
      // The five sampling denials the store replayed in the first connection.
      expect(answer.representedRefusals).toContainEqual({ client: 'represent', replayed: 5, evaluatedAfresh: 2 });
      expect(typeof answer.analysedThrough).toBe('string');
      expect(answer.lagMs).toBeGreaterThanOrEqual(0);
    });

    it('asks no session question of MCP 2026-07-28 traffic, stored and read back', async () => {
      const stateless = (event: ReturnType<typeof granted>) => {
        const request = event.request as { params: Record<string, unknown> };
        const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
        return { ...event, request: { ...request, params: { ...request.params, _meta } } };
      };
      await postNdjson(app, [stateless(denial(0, 'sid-1')), stateless(granted(10, 'sid-2'))]);
      await postNdjson(app, [denial(20, 's1'), granted(30, 's2')]);
      await analysed(app);
      const items: { refusal: { era: string | null }; newSession: boolean | null }[] = (await denials()).items;
      expect(items.map((d) => [d.refusal.era, d.newSession])).toEqual([
        ['2026', null],
        ['2025', true],
      ]);
    });

    it('says of MCP 2026-07-28 denials whether the client re-probed or restarted in between, and only of those', async () => {
      const { events, expected } = inBetweenScenario();
      await postNdjson(app, events);
      await analysed(app);
      const items: { newSession: boolean | null; reprobed: boolean | null; restarted: boolean | null }[] = (
        await denials()
      ).items;
      expect(items.map((d) => [d.newSession, d.reprobed, d.restarted])).toEqual(expected);
    });

    it('keeps the audit exact when the refusal arrives after the answer, and when it lapsed', async () => {
      const refusal = denial(0, 's1');
      const answer = granted(10, 's2');
      await postNdjson(app, [answer]);
      expect((await denials()).total).toBe(0);
      await postNdjson(app, [refusal, denial(5, 's1')]);
      const after = await denials();
      expect(after.items).toEqual([
        expect.objectContaining({ refusal: expect.objectContaining({ id: refusal.id }), newSession: true }),
      ]);
      expect(after.items[0].answer.id).toBe(answer.id);
      expect(after.representedRefusals).toEqual([{ client: 'agent-7', replayed: 1, evaluatedAfresh: 1 }]);
      // Another identity, whose refusal named its lapse: a success after it is the fresh evaluation it was owed.
      const lapsing = {
        ...denial(0, 's3', BASE_TS + 5000),
        request: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'other', arguments: {} } },
      };
      const later = { ...granted(6, 's3'), request: lapsing.request };
      await postNdjson(app, [lapsing, later]);
      expect((await denials()).total).toBe(1);
      // Narrowed to a client without any: nothing.
      expect((await denials(`${RANGE}&client=nobody`)).total).toBe(0);
    });

    it('lists the latest 200 and counts them all', async () => {
      const events = Array.from({ length: DENIALS_LISTED + 5 }, (_, i) => {
        const request = { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: `tool-${i}`, arguments: {} } };
        const client = i % 2 === 0 ? 'even' : 'odd';
        return [
          { ...denial(i, `s${i}`), client, request },
          { ...granted(i + 0.5, `t${i}`), client, request },
        ];
      }).flat();
      await postNdjson(app, events);
      const all = await denials();
      expect(all.total).toBe(DENIALS_LISTED + 5);
      expect(all.byClient).toEqual({ even: 103, odd: 102 });
      expect(all.items).toHaveLength(DENIALS_LISTED);
      // The latest, oldest first: the first five answers are the ones left out.
      const idOf = (event: object | undefined) => (event as { id?: string } | undefined)?.id;
      expect(all.items[0].answer.id).toBe(idOf(events[2 * 5 + 1]));
      expect(all.items.at(-1).answer.id).toBe(idOf(events.at(-1)));
      expect(all.representedRefusals).toEqual([
        { client: 'even', replayed: 0, evaluatedAfresh: 103 },
        { client: 'odd', replayed: 0, evaluatedAfresh: 102 },
      ]);
    });

    it('follows a reclassification: a denial re-filed as transient is no decision', async () => {
      await postNdjson(app, [denial(0, 's1'), granted(10, 's1')]);
      expect((await denials()).total).toBe(1);
      const res = await putJson(app, '/api/v1/servers/release-notes/overrides', {
        overrides: [{ rpcCode: -32003, bucket: 'transient', kind: 'retryable_denial' }],
      });
      expect(res.status).toBe(200);
      await analysed(app);
      expect((await denials()).total).toBe(0);
    });

    it('gives the alert metric the count the list has, per server', async () => {
      await postNdjson(app, [denial(0, 's1'), granted(10, 's2')]);
      const rule = {
        name: 'Denials that did not hold',
        metric: 'denials_not_held',
        groupBy: 'server',
        comparator: '>=',
        warning: 1,
        critical: 5,
        windowSeconds: 3600,
        intervalSeconds: 60,
        pendingSeconds: 0,
        keepFiringForSeconds: 0,
        targets: [],
      };
      const res = await postJson(app, '/api/v1/alerts/rules/preview', { rule, from: BASE_TS, to: BASE_TS + 7_200_000 });
      expect(res.status).toBe(200);
      const preview = await res.json();
      const series = preview.series.find((s: { group: string }) => s.group === 'release-notes');
      expect(Math.max(...series.values)).toBe((await denials()).byServer['release-notes']);
    });

    it('audits, after the upgrade that added it, the refusals a store held before', async () => {
      await postNdjson(app, [denial(0, 's1'), denial(2, 's1'), granted(10, 's2')]);
      // The lag is wall-clock time: the audit is the rest.
      const audit = async () => {
        const { analysedThrough: _through, lagMs: _lag, ...rest } = await denials();
        return rest;
      };
      const kept = await audit();
      expect(kept.total).toBe(1);
      // The store as the release before left it: no audit. The migration queues its refused identities, and an
      // idle fold audits them.
      const rows = ['denial_breach', 'denial_replay_hour', 'denial_identity'];
      for (const table of [...rows, 'denial_hour', 'denial_client_hour', 'denial_server_hour']) {
        await db.store.run(sql.raw(`DELETE FROM ${table}`));
      }
      expect((await denials()).total).toBe(0);
      await replayMigration(db.store, kind.name, 'denial_audit', 'INSERT INTO');
      await foldAll(db.store);
      expect(await audit()).toEqual(kept);
    });

    it('counts, after the upgrade that added the hour counts, what the audit held before', async () => {
      await postNdjson(app, [denial(0, 's1'), denial(2, 's1'), granted(10, 's2'), denial(3_700, 's3')]);
      await postNdjson(app, [denial(3_710, 's3'), granted(3_720, 's4')]);
      const hours = `from=${BASE_TS - 3_600_000}&to=${BASE_TS + 3 * 3_600_000}`;
      // The lag is wall-clock time: the audit is the rest.
      const audit = async () => {
        const { analysedThrough: _through, lagMs: _lag, ...rest } = await denials(hours);
        return rest;
      };
      const kept = await audit();
      expect(kept.total).toBe(2);
      expect(kept.representedRefusals).toEqual([{ client: 'agent-7', replayed: 2, evaluatedAfresh: 2 }]);
      // The store as the release before left it: no hour counts. The migration fills them from the audit's rows.
      for (const table of ['denial_hour', 'denial_client_hour', 'denial_server_hour']) {
        await db.store.run(sql.raw(`DELETE FROM ${table}`));
      }
      expect((await denials(hours)).total).toBe(0);
      expect((await denials(`${hours}&server=release-notes`)).total).toBe(0);
      await replayMigration(db.store, kind.name, 'denial_hours', (statement) => /INSERT INTO denial_/.test(statement));
      expect(await audit()).toEqual(kept);
    });

    it('counts two answers that share an event id at different times', async () => {
      // Logs reuse ids (a client restarting its numbering): the store keeps both events, and so does the audit.
      const answer = (seconds: number, session: string) => ({ ...granted(seconds, session), id: 'reused-id' });
      await postNdjson(app, [denial(0, 's1'), answer(10, 's2'), denial(20, 's3'), answer(30, 's4')]);
      const found = await denials();
      expect(found.total).toBe(2);
      expect(found.items.map((item: { answer: { ts: number } }) => item.answer.ts - BASE_TS)).toEqual([10_000, 30_000]);
    });

    it('refuses a range that ends before it starts', async () => {
      const res = await get(app, `/api/v1/denials?from=${BASE_TS}&to=${BASE_TS - 1}`);
      expect(res.status).toBe(400);
    });
  });
});
