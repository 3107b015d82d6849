import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readMetric, storeReads } from '../../api/services/alerts/readings.ts';
import { analysed, createTestApp, get, postJson, postNdjson, putJson, type TestApp } from '../support/app.ts';
import { type CorpusName, corpusText, expectedOf } from '../support/corpus.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

const PAPER = readFileSync(new URL('../fixtures/actionability/seed-004.ndjson', import.meta.url), 'utf8')
  .trim()
  .split('\n');
const PAPER_RANGE = 'from=2026-08-20T00:00:00Z&to=2026-08-21T00:00:00Z';
const CORPUS_RANGE = 'from=2026-12-02T00:00:00Z&to=2026-12-03T00:00:00Z';

interface Counts {
  failures: number;
  profiles: Record<string, number>;
  [bit: string]: unknown;
}
interface EventWithBits {
  id: string;
  bucket: string;
  actionability:
    | (Record<'control' | 'transport' | 'content', { profile: string; evidence: Record<string, string> }> & {
        hidden: { failure: boolean; throttle: boolean };
      })
    | null;
}

describe.each(STORE_KINDS)('GET /api/v1/actionability on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    const read = async (query: string) => {
      const res = await get(app, `/api/v1/actionability?${query}`);
      expect(res.status).toBe(200);
      return res.json();
    };

    it("reproduces seed 004's Table I from its 21 failures, 3 of them success-shaped at HTTP 200", async () => {
      // Out of order: the fold's counts do not depend on arrival.
      expect((await postNdjson(app, [...PAPER].reverse())).status).toBe(200);
      const answer = await read(PAPER_RANGE);
      expect(answer.control).toEqual({
        failures: 21,
        D: 18,
        P: 8,
        C: 0,
        T: 0,
        E: 0,
        R: 0,
        profiles: { '100000': 10, '110000': 8, '000000': 3 },
      });
      // Once the text is read (the paper's content-assisted view).
      expect(answer.content).toEqual({
        failures: 21,
        D: 21,
        P: 19,
        C: 19,
        T: 18,
        E: 0,
        R: 0,
        profiles: { '111100': 18, '100000': 2, '111000': 1 },
      });
      // All at HTTP 200: the status adds nothing.
      expect(answer.transport.profiles).toEqual(answer.control.profiles);
      expect(answer.hidden).toEqual({ failures: 3, throttles: 0 });
      expect(answer.servers).toHaveLength(10);
      expect(typeof answer.analysedThrough).toBe('string');
      expect(answer.lagMs).toBeGreaterThanOrEqual(0);
      // Servers whose failures are all -32602 dominate those with isError alone, never the other way round.
      const s01 = answer.servers.find((s: { server: string }) => s.server === 'paper-s01');
      expect(s01.control.profiles).toEqual({ '110000': 2 });
      expect(s01.dominates.control).toContain('paper-s10');
      expect(s01.dominatedBy.control).toEqual([]);
      expect(answer.servers[0].bitsPerFailure.control).toBeGreaterThanOrEqual(
        answer.servers.at(-1).bitsPerFailure.control,
      );
      // paper-s09: an isError lookup that found nothing and the success-shaped "Invalid symbol".
      const s09 = answer.servers.find((s: { server: string }) => s.server === 'paper-s09');
      expect(s09.hidden).toEqual({ failures: 1, throttles: 0 });
      expect(s09.content.profiles).toEqual({ '111100': 1, '100000': 1, '111000': 1 });
      // One server: the fleet numbers are its own.
      const one = await read(`${PAPER_RANGE}&server=paper-s10`);
      expect(one.servers.map((s: { server: string }) => s.server)).toEqual(['paper-s10']);
      expect(one.control.profiles).toEqual({ '100000': 2 });
      expect(one.hidden).toEqual({ failures: 0, throttles: 0 });
    });

    it("lists a server's failures with each bit's field, and those of one profile", async () => {
      await postNdjson(app, PAPER);
      const page = await (await get(app, `/api/v1/events?${PAPER_RANGE}&server=paper-s04&failed=true`)).json();
      const byId = new Map<string, EventWithBits>(page.events.map((e: EventWithBits) => [e.id, e]));
      // The success-shaped error keeps its bucket: it is no failure by its typed fields.
      expect([...byId.keys()].sort()).toEqual(['s004-04']);
      expect(byId.get('s004-04')?.actionability?.control).toEqual({
        profile: '110000',
        evidence: { D: 'response.error', P: 'response.error.code' },
      });
      const shaped = await (await get(app, `/api/v1/events?${PAPER_RANGE}&profile=000000`)).json();
      expect(shaped.events.map((e: EventWithBits) => e.id).sort()).toEqual(['s004-19', 's004-20', 's004-21']);
      const bad = await get(app, `/api/v1/events?profile=11`);
      expect(bad.status).toBe(400);
      expect((await bad.json()).error.code).toBe('invalid_request');
    });

    it('lists the hidden failures with the rule and text that show each, in their own bucket', async () => {
      await postNdjson(app, PAPER);
      const page = await (await get(app, `/api/v1/events?${PAPER_RANGE}&hidden=failure`)).json();
      const byId = new Map<string, EventWithBits>(page.events.map((e: EventWithBits) => [e.id, e]));
      expect([...byId.keys()].sort()).toEqual(['s004-19', 's004-20', 's004-21']);
      expect(byId.get('s004-19')?.bucket).toBe('ok');
      expect(byId.get('s004-19')?.actionability).toEqual({
        control: { profile: '000000', evidence: {} },
        transport: { profile: '000000', evidence: {} },
        content: {
          profile: '111100',
          evidence: {
            D: 'response.result.content[0].text',
            P: 'response.result.content[0].text',
            C: 'response.result.content[0].text',
            T: 'response.result.content[0].text',
          },
          text: {
            D: { rule: 'json_error_object', span: `{"status":"error","message":"'limit' must be a number"}` },
            P: { rule: 'invalid_type', span: "'limit' must be a number" },
            C: { rule: 'invalid_type', span: "'limit' must be a number" },
            T: { rule: 'named_target', span: 'limit' },
          },
        },
        hidden: { failure: true, throttle: false },
      });
      const throttles = await (await get(app, `/api/v1/events?${PAPER_RANGE}&hidden=throttle`)).json();
      expect(throttles.events).toEqual([]);
      const bad = await get(app, `/api/v1/events?hidden=yes`);
      expect(bad.status).toBe(400);
    });

    it('watches the share of failures without a policy with the numbers the route answers', async () => {
      await postNdjson(app, PAPER);
      const answer = await read(PAPER_RANGE);
      const to = Date.parse('2026-08-21T00:00:00Z');
      const rule = { metric: 'failures_without_policy' as const, scope: {}, windowSeconds: 86_400 };
      const values = await readMetric(db.store, storeReads(db.store), { ...rule, groupBy: 'server' }, to);
      for (const server of answer.servers as { server: string; control: Counts }[]) {
        const { failures, P } = server.control;
        const reading = values.find((v) => v.group === server.server)?.value;
        expect(reading, server.server).toBe((failures - (P as number)) / failures);
      }
      expect(values.find((v) => v.group === 'paper-s01')?.value).toBe(0);
      expect(values.find((v) => v.group === 'paper-s10')?.value).toBe(1);
      // The fleet: 13 of the 21 failures select no policy from typed fields.
      const [fleet] = await readMetric(db.store, storeReads(db.store), { ...rule, groupBy: 'none' }, to);
      expect(fleet?.value).toBe(13 / 21);
      const scoped = await postJson(app, '/api/v1/alerts/rules', {
        name: 'prose only',
        metric: 'failures_without_policy',
        scope: { client: 'probe' },
        critical: 0.5,
      });
      expect(scoped.status).toBe(400);
      expect((await scoped.json()).error.field).toBe('scope.client');
    });

    it('refuses a range that ends before it begins', async () => {
      const backwards = await get(app, '/api/v1/actionability?from=2026-08-21T00:00:00Z&to=2026-08-20T00:00:00Z');
      expect(backwards.status).toBe(400);
      expect((await backwards.json()).error.code).toBe('invalid_request');
    });

    async function ingestCorpus(corpus: CorpusName) {
      const server = expectedOf(corpus).server[0] as string;
      const doc = JSON.parse(corpusText(corpus, 'discovery.json'));
      expect((await putJson(app, `/api/v1/servers/${server}/discovery`, doc)).status).toBe(200);
      const res = await app.request('/api/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1:7700' },
        body: corpusText(corpus, 'client.ndjson'),
      });
      expect(res.status).toBe(200);
      await analysed(app);
      return (await read(CORPUS_RANGE)) as { control: Counts; transport: Counts };
    }

    it('reads the A2A JS corpus: typed A2A codes name policy and cause; its 404 probes are failures only by status', async () => {
      const { control, transport } = await ingestCorpus('a2a-js');
      expect(control.profiles).toEqual({ '111000': 15, '000000': 20 });
      expect(transport.profiles).toEqual({ '111000': 15, '100000': 20 });
      const page = await (await get(app, `/api/v1/events?${CORPUS_RANGE}&profile=111000&limit=1000`)).json();
      const evidence = new Set(
        page.events.map((e: EventWithBits) => JSON.stringify(e.actionability?.control.evidence)),
      );
      // ErrorInfo's reason comes second: the typed code has already named the cause.
      expect([...evidence]).toEqual([
        JSON.stringify({ D: 'response.error', P: 'response.error.code', C: 'response.error.code' }),
      ]);
    });

    it("reads the MCP Python corpus: seed 002's denials carry policy, cause and replay; 429s earn R with transport", async () => {
      const { control, transport } = await ingestCorpus('mcp-python');
      // The seven budget denials: reason (C), retryable (P), resetsAt (R).
      expect(control.profiles['111001']).toBe(7);
      expect(control.R).toBe(7);
      // The 429s with Retry-After add timing only in the transport view.
      expect(transport.R).toBeGreaterThan(control.R as number);
      expect(control.T).toBe(0);
      expect(control.E).toBe(0);
      const denial = (await (await get(app, `/api/v1/events?${CORPUS_RANGE}&profile=111001&limit=1`)).json())
        .events[0] as EventWithBits;
      expect(denial.actionability?.control.evidence).toEqual({
        D: 'response.error',
        P: 'response.error.data.retryable',
        C: 'response.error.data.reason',
        R: 'response.error.data.resetsAt',
      });
    });
  });
});
