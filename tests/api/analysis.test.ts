import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { loadDemo } from '../../api/demo/load.ts';
import { DEFAULT_CONFIG } from '../../api/env.ts';
import { get } from '../support/app.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');

describe.each(STORE_KINDS)('traffic analysis over the demo day on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: ReturnType<typeof createApp>;
    beforeAll(async () => {
      db = await kind.open();
      await loadDemo(db.store, NOW);
      app = createApp({ store: db.store, clock: () => NOW, config: DEFAULT_CONFIG });
    });
    afterAll(async () => db.dispose());

    const json = async (path: string) => {
      const res = await get(app, path);
      expect(res.status, path).toBe(200);
      return res.json();
    };

    it("finds seed 000's prober as a probe storm: 22 probes, 19 of them avoidable", async () => {
      const { storms } = await json('/api/v1/storms?server=docs&client=prober-9');
      const probes = storms.filter((s: { kind: string }) => s.kind === 'probe_storm');
      expect(probes).toHaveLength(3);
      for (const storm of probes) {
        expect(storm.paths).toEqual(expect.arrayContaining(['POST /mcp/mcp', 'POST /mcp/sse', 'POST /mcp/a2a/']));
        expect(storm.firstFailure).toEqual({ bucket: 'refusal', kind: 'not_declared' });
      }
      // The first run: nothing before it was refused, so 3 probes were needed and 19 were not.
      expect(probes[0]).toMatchObject({ attempts: expect.any(Number), avoidable: expect.any(Number) });
      expect(probes[0].attempts - probes[0].avoidable).toBeLessThanOrEqual(4);
      expect(probes[0].avoidable).toBeGreaterThanOrEqual(19);
    });

    it('opens one storm with its attempt timeline', async () => {
      const { storms } = await json('/api/v1/storms?server=files');
      const reconnect = storms.find((s: { client: string }) => s.client === 'ide-host');
      expect(reconnect).toBeDefined();
      expect(reconnect.lastTs).toBeGreaterThan(NOW - 10 * 60_000);
      const detail = await json(`/api/v1/storms/${reconnect.id}`);
      expect(detail.timeline.length).toBe(detail.attempts);
      expect(detail.timeline[0]).toMatchObject({ status: 405, bucket: 'refusal' });
      expect(detail.timeline.filter((a: { avoidable: boolean }) => a.avoidable).length).toBe(detail.avoidable);
      expect((await get(app, '/api/v1/storms/bm90LWEtc3Rvcm0')).status).toBe(404);
    });

    it('ranks the denied sampling request first among re-presented identities, with its alarm', async () => {
      const { identities } = await json('/api/v1/identities?limit=5');
      const top = identities[0];
      expect(top).toMatchObject({
        server: 'release-notes',
        method: 'sampling/createMessage',
        sends: 88,
        represented: 87,
      });
      expect(top.last).toMatchObject({ bucket: 'refusal', kind: 'policy_denied' });
      expect(top.alarms.length).toBeGreaterThan(0);
      const one = await json(`/api/v1/identities/${encodeURIComponent(top.identity)}?from=${NOW - 15 * 60_000}`);
      expect(one.sends).toBe(44);
      expect(one.alarms).toHaveLength(1);
    });

    it('lists each identity as its own page shows it, over the same range, certain of the ranking', async () => {
      const { identities, exact } = await json('/api/v1/identities?limit=5');
      expect(exact).toBe(true);
      expect(identities).toHaveLength(5);
      for (const listed of identities) {
        expect(await json(`/api/v1/identities/${encodeURIComponent(listed.identity)}`)).toEqual(listed);
      }
    });

    it("reports the summariser's context gap: most calls trimmed, with the reason", async () => {
      const { servers } = await json('/api/v1/context-gap');
      const summariser = servers.find((s: { server: string }) => s.server === 'summarizer');
      expect(summariser.trimRate).toBeGreaterThan(0.6);
      expect(summariser.trimRate).toBeLessThan(0.95);
      expect(Object.keys(summariser.reasons)).toEqual(['policy.max_scope']);
      expect(summariser.matrix.allServers.none).toBeGreaterThan(0);
    });

    it("describes each client's conduct", async () => {
      const { clients } = await json('/api/v1/clients');
      const byName = Object.fromEntries(clients.map((c: { client: string }) => [c.client, c]));
      expect(byName['prober-9'].probedWithoutDiscovery).toBe(66);
      expect(byName['batch-worker'].retriedBeforeRetryAfter).toBeGreaterThan(0);
      // Three bursts of nine 503s: the 5th attempt on is avoidable, and a key that spent its budget without a success
      // stays spent (seed 000's gate never refills it), so the later bursts are avoidable whole: 5 + 9 + 9.
      expect(byName['agent-8'].retriedPastBudget).toBe(23);
      expect(byName['agent-1'].retriedPastBudget).toBe(0);
      expect(byName['ide-host'].hurtsMost[0].server).toBe('files');
    });

    it('lists servers and drills into one', async () => {
      const { servers } = await json('/api/v1/servers');
      const docs = servers.find((s: { server: string }) => s.server === 'docs');
      expect(docs).toMatchObject({ hasDiscovery: true });
      expect(docs.buckets.refusal).toBeGreaterThanOrEqual(66);
      const detail = await json('/api/v1/servers/docs');
      expect(detail.storms.length).toBeGreaterThanOrEqual(3);
      expect(detail.discovery.format).toBe('plain');
      expect(detail.series.points.length).toBeGreaterThan(60);
      expect((await get(app, '/api/v1/servers/nobody-here')).status).toBe(404);
    });

    it("counts a server's failures per code, adding up to its failures per kind", async () => {
      interface CodeCount {
        rpcCode: number | null;
        httpStatus: number | null;
        bucket: string;
        kind: string;
        requests: number;
      }
      const docs = await json('/api/v1/servers/docs');
      const codes: CodeCount[] = docs.codes;
      const failed = docs.counts.total - docs.counts.buckets.ok;
      expect(failed).toBeGreaterThan(0);
      expect(codes.reduce((sum, row) => sum + row.requests, 0)).toBe(failed);
      expect(codes).toContainEqual({
        rpcCode: null,
        httpStatus: 404,
        bucket: 'refusal',
        kind: 'not_declared',
        requests: docs.counts.kinds.refusal.not_declared,
      });
      expect(codes.map((row) => row.requests)).toEqual(codes.map((row) => row.requests).sort((a, b) => b - a));

      const notes = await json('/api/v1/servers/release-notes');
      expect(notes.codes).toContainEqual({
        rpcCode: -32003,
        httpStatus: 200,
        bucket: 'refusal',
        kind: 'policy_denied',
        requests: notes.counts.kinds.refusal.policy_denied,
      });
      const quiet = await json(`/api/v1/servers/docs?from=${NOW + 60_000}&to=${NOW + 120_000}`);
      expect(quiet.codes).toEqual([]);
    });

    it('buckets the whole range, zeros included, and sums to the summary', async () => {
      const series = await json(`/api/v1/timeseries?from=${NOW - 3_600_000}&to=${NOW}`);
      expect(series.step).toBe(60_000);
      expect(series.points).toHaveLength(60);
      const summary = await json(`/api/v1/summary?from=${NOW - 3_600_000}&to=${NOW}`);
      const total = series.points.reduce((n: number, p: { requests: number }) => n + p.requests, 0);
      expect(total).toBe(summary.overall.total);
      // The avoidable requests the summary counts are those of the chart and of the server list.
      const avoidable = series.points.reduce((n: number, p: { avoidable: number }) => n + p.avoidable, 0);
      expect(avoidable).toBeGreaterThan(0);
      expect(summary.overall.avoidable).toBe(avoidable);
      const { servers } = await json(`/api/v1/servers?from=${NOW - 3_600_000}&to=${NOW}`);
      expect(servers.reduce((n: number, s: { avoidable: number }) => n + s.avoidable, 0)).toBe(avoidable);
      expect(summary.servers.docs.avoidable).toBe(
        servers.find((x: { server: string }) => x.server === 'docs').avoidable,
      );
    });

    it('gives the step asked for: a minute series of a day in one call, each point the sum of the finer ones', async () => {
      const day = `from=${NOW - 86_400_000}&to=${NOW}`;
      const minutes = await json(`/api/v1/timeseries?${day}&step=1m`);
      expect(minutes.step).toBe(60_000);
      expect(minutes.points).toHaveLength(1440);
      const fitted = await json(`/api/v1/timeseries?${day}`);
      expect(fitted.step).toBe(300_000);
      // Every 5-minute point is its five minutes; the traffic of the last hour is in both.
      const sums = new Map<number, number>();
      for (const p of minutes.points) {
        const start = p.start - (p.start % 300_000);
        sums.set(start, (sums.get(start) ?? 0) + p.requests);
      }
      for (const p of fitted.points) expect(sums.get(p.start) ?? 0, String(p.start)).toBe(p.requests);
      expect(fitted.points.reduce((n: number, p: { requests: number }) => n + p.requests, 0)).toBeGreaterThan(0);
      const server = await json(`/api/v1/timeseries?${day}&step=1h&server=docs`);
      expect(server.step).toBe(3_600_000);
      expect(server.points).toHaveLength(24);
    });

    it('refuses a step it does not know, or one that makes more than a week of minutes', async () => {
      const unknown = await get(app, `/api/v1/timeseries?step=90s`);
      expect(unknown.status).toBe(400);
      expect((await unknown.json()).error.field).toBe('step');
      const tooFine = await get(app, `/api/v1/timeseries?from=${NOW - 8 * 86_400_000}&to=${NOW}&step=1m`);
      expect(tooFine.status).toBe(400);
      expect((await tooFine.json()).error).toMatchObject({ field: 'step', retryable: false });
      expect((await get(app, `/api/v1/timeseries?from=${NOW - 7 * 86_400_000}&to=${NOW}&step=1m`)).status).toBe(200);
    });

    it.each(['storms', 'context-gap', 'clients', 'servers'])('refuses an inverted range on /%s', async (route) => {
      const res = await get(app, `/api/v1/${route}?from=${NOW}&to=${NOW - 1000}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: 'invalid_request', field: 'from' });
    });
  });
});
