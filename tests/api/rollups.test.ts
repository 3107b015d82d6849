import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rankIdentities } from '../../api/services/analysis/identity-ranking.ts';
import { loadAnalysis } from '../../api/services/analysis/load.ts';
import { clientsIn, contextGapIn } from '../../api/services/analysis/traffic.ts';
import { setDiscovery, setOverrides } from '../../api/services/server-config.ts';
import { serverSummary, summarise } from '../../api/services/summary.ts';
import { codeCounts, rawCodeCounts } from '../../db/counters/codes.ts';
import { COUNTER_TABLES } from '../../db/counters/levels.ts';
import { CONDUCT_COLUMNS, conductRows, countRows } from '../../db/counters/rollups.ts';
import { analysisRows, topIdentityRows } from '../../db/queries/analysis.ts';
import { partitionsEvents } from '../../db/queries/gate.ts';
import { rawBucketCounts } from '../../db/queries/summary.ts';
import type { SqlRunner } from '../../db/runner.ts';
import { clientConduct } from '../../shared/analysis/conduct.ts';
import { contextGapByServer, contextTrend, gapSummary } from '../../shared/analysis/context-gap.ts';
import { stepFor } from '../../shared/analysis/time-buckets.ts';
import { parseDiscovery } from '../../shared/discovery.ts';
import { BASE_TS } from '../support/events.ts';
import { ingestFolded } from '../support/ingest.ts';
import { replayMigration } from '../support/migrations.ts';
import { queryPlan } from '../support/plans.ts';
import { openTempSqlite, STORE_KINDS, type TestStore } from '../support/stores.ts';
import { mixedTraffic } from '../support/traffic.ts';

/**
 * A migration's statements holding `verb`, but those that read or write the pair family's minutes: that level is
 * gone (migration 0022), and what the statements did to it cannot be done again.
 */
function withoutPairMinutes(verb: string): (statement: string) => boolean {
  return (statement) => statement.includes(verb) && !/\brollup_minute\b/.test(statement);
}

describe.each(STORE_KINDS)('rollups on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    const events = mixedTraffic(1500, 11);
    beforeAll(async () => {
      db = await kind.open();
      // Shuffled batches, a repeated batch (duplicates), then configuration changes that reclassify.
      const shuffled = [...events].sort((a, b) => String(a.id).localeCompare(String(b.id)));
      for (let i = 0; i < shuffled.length; i += 400) {
        await ingestFolded(
          db.store,
          shuffled.slice(i, i + 400).map((value, n) => ({ line: n + 1, value })),
        );
      }
      await ingestFolded(
        db.store,
        shuffled.slice(0, 300).map((value, n) => ({ line: n + 1, value })),
      );
      const doc = parseDiscovery({ endpoints: [{ method: 'POST', path: '/mcp' }, { path: '/p1' }] });
      if (!doc.ok) throw new Error('bad test document');
      await setDiscovery({
        ctx: { db: db.store, now: BASE_TS },
        input: { server: 's1', document: doc.document, source: {} },
      });
      await setOverrides({
        ctx: { db: db.store, now: BASE_TS },
        input: { server: 's2', overrides: [{ match: { httpStatus: 503 }, bucket: 'refusal', kind: 'gone' }] },
      });
    });
    afterAll(async () => db.dispose());

    it('count exactly what the events count, over any range', async () => {
      const ranges: [number | undefined, number | undefined][] = [
        [undefined, undefined],
        [BASE_TS + 123_456, BASE_TS + 2 * 3_600_000 + 7_891],
        [BASE_TS + 3_600_000, BASE_TS + 2 * 3_600_000],
        [BASE_TS + 59_999, BASE_TS + 61_001],
        [BASE_TS + 1000, BASE_TS + 2000],
        [BASE_TS + 30 * 60_000, undefined],
      ];
      for (const [from, to] of ranges) {
        const filter = { from, to, eventsFrom: null };
        const raw = (await rawBucketCounts(db.store, filter)).reduce((n, r) => n + r.count, 0);
        const summary = await summarise(db.store, filter);
        expect(summary.overall.total, `[${from}, ${to})`).toBe(raw);
        const perServer = await summarise(db.store, { ...filter, server: 's2' });
        const rawServer = (await rawBucketCounts(db.store, { ...filter, server: 's2' })).reduce(
          (n, r) => n + r.count,
          0,
        );
        expect(perServer.overall.total).toBe(rawServer);
        // The server's page reads it once, with what no named client sent, as the families read apart count them.
        const { summary: ofServer, unnamed } = await serverSummary(db.store, { ...filter, server: 's2' });
        expect(ofServer).toEqual(perServer);
        const own = await countRows(db.store, { ...filter, server: 's2', client: '' }, null, ['server']);
        expect(unnamed.total).toBe(own.reduce((n, r) => n + r.requests, 0));
        expect(unnamed.avoidable).toBe(own.reduce((n, r) => n + r.avoidable, 0));
      }
    });

    it('give the same per-server series from the family without clients, at every step', async () => {
      const range = { from: BASE_TS + 61_234, to: BASE_TS + 2 * 3_600_000 + 5 * 60_000 + 17, eventsFrom: null };
      for (const step of [60_000, 5 * 60_000, 15 * 60_000, 3_600_000]) {
        const fold = (
          rows: { start: number; server: string; bucket: string; requests: number; avoidable: number }[],
        ) => {
          const out = new Map<string, [number, number]>();
          for (const r of rows) {
            const key = `${r.start}|${r.server}|${r.bucket}`;
            const [n, a] = out.get(key) ?? [0, 0];
            out.set(key, [n + r.requests, a + r.avoidable]);
          }
          return out;
        };
        const withClients = fold(await countRows(db.store, range, step, ['server', 'client', 'kind']));
        const withoutClients = fold(await countRows(db.store, range, step, ['server']));
        expect(withoutClients, `step ${step}`).toEqual(withClients);
      }
    });

    it('give the same per-client counts from the family without servers, at every step', async () => {
      const range = { from: BASE_TS + 61_234, to: BASE_TS + 2 * 3_600_000 + 5 * 60_000 + 17, eventsFrom: null };
      const fold = (rows: { start: number; client: string; bucket: string; kind: string; requests: number }[]) => {
        const out = new Map<string, number>();
        for (const r of rows) {
          const key = `${r.start}|${r.client}|${r.bucket}|${r.kind}`;
          out.set(key, (out.get(key) ?? 0) + r.requests);
        }
        return new Map([...out].filter(([, n]) => n !== 0));
      };
      for (const step of [null, 60_000, 5 * 60_000, 3_600_000]) {
        const withServers = fold(await countRows(db.store, range, step, ['server', 'client', 'kind']));
        const withoutServers = fold(await countRows(db.store, range, step, ['client', 'kind']));
        expect(withoutServers.size, `step ${step}`).toBeGreaterThan(10);
        expect(withoutServers, `step ${step}`).toEqual(withServers);
      }
    });

    /** Count rows folded to time, bucket and kind, with zero sums left out. */
    const byKind = (rows: { start: number; bucket: string; kind: string; requests: number; avoidable: number }[]) => {
      const out = new Map<string, [number, number]>();
      for (const r of rows) {
        const key = `${r.start}|${r.bucket}|${r.kind}`;
        const [n, a] = out.get(key) ?? [0, 0];
        out.set(key, [n + r.requests, a + r.avoidable]);
      }
      return new Map([...out].filter(([, [n, a]]) => n !== 0 || a !== 0));
    };

    it("give the same whole federation's counts from the family without servers or clients, at every step", async () => {
      const range = { from: BASE_TS + 61_234, to: BASE_TS + 2 * 3_600_000 + 5 * 60_000 + 17, eventsFrom: null };
      for (const step of [null, 60_000, 5 * 60_000, 15 * 60_000, 3_600_000]) {
        const perServer = byKind(await countRows(db.store, range, step, ['server', 'kind']));
        const fleet = byKind(await countRows(db.store, range, step, ['kind']));
        expect(fleet.size, `step ${step}`).toBeGreaterThan(step === null ? 3 : 10);
        expect(fleet, `step ${step}`).toEqual(perServer);
      }
    });

    it("are summed by the migration that added the whole federation's family, from the family per server", async () => {
      const range = { from: BASE_TS + 60_000, to: BASE_TS + 3 * 3_600_000, eventsFrom: null };
      const before = byKind(await countRows(db.store, range, 60_000, ['kind']));
      for (const level of ['minute', '5min', 'hour']) await db.store.run(sql.raw(`DELETE FROM rollup_fleet_${level}`));
      expect(byKind(await countRows(db.store, range, 60_000, ['kind'])).size).toBe(0);
      await replayMigration(db.store, kind.name, kind.name === 'sqlite' ? '0024_' : '0023_', 'INSERT');
      expect(byKind(await countRows(db.store, range, 60_000, ['kind']))).toEqual(before);
    });

    it('are summed by the migration that added the families per client and of avoidable requests per pair', async () => {
      // Whole minutes: no edge is read from the events.
      const range = { from: BASE_TS + 60_000, to: BASE_TS + 2 * 3_600_000 + 5 * 60_000, eventsFrom: null };
      const [summary, clients] = [await summarise(db.store, range), await clientsIn(db.store, range)];
      expect(clients.some((client) => client.hurtsMost.length > 1)).toBe(true);
      // Their minutes came from the pair family's, which are gone since (migration 0022): the coarser levels are
      // what can be summed again.
      for (const level of ['5min', 'hour']) {
        await db.store.run(sql.raw(`DELETE FROM rollup_client_${level}`));
        await db.store.run(sql.raw(`DELETE FROM rollup_avoidable_${level}`));
      }
      expect(await summarise(db.store, range)).not.toEqual(summary);
      expect(await clientsIn(db.store, range)).not.toEqual(clients);
      await replayMigration(db.store, kind.name, '0012_', withoutPairMinutes('INSERT'));
      expect(await summarise(db.store, range)).toEqual(summary);
      expect(await clientsIn(db.store, range)).toEqual(clients);
    });

    it("keep each client's conduct as the events tell it, over any range", async () => {
      for (const range of [
        { from: BASE_TS - 3_600_000, to: BASE_TS + 4 * 3_600_000, eventsFrom: null },
        { from: BASE_TS + 12_345, to: BASE_TS + 2 * 3_600_000 + 7_777, eventsFrom: null },
        { from: BASE_TS + 3_600_000, to: BASE_TS + 3_600_000 + 90_000, server: 's1', eventsFrom: null },
      ]) {
        const { events: loaded, verdicts } = await loadAnalysis(db.store, range);
        const fromEvents = clientConduct(loaded, verdicts);
        const fromRollups = await clientsIn(db.store, range);
        // The eras are held to the events by tests/api/era-counts.test.ts.
        expect(fromRollups.map(({ share: _share, eras: _eras, ...client }) => client)).toEqual(fromEvents);
        // What an alert on retries after refusal reads per server: the family without clients.
        const perServer = new Map<string, number>();
        for (const event of loaded) {
          if (!event.counted || event.client === null || verdicts.get(event.id)?.reason !== 'after_refusal') continue;
          perServer.set(event.server, (perServer.get(event.server) ?? 0) + 1);
        }
        const byServer = await conductRows(db.store, range, true);
        expect(new Map(byServer.filter((r) => r.after_refusal > 0).map((r) => [r.server, r.after_refusal]))).toEqual(
          perServer,
        );
      }
      const all = await clientsIn(db.store, {
        from: BASE_TS - 3_600_000,
        to: BASE_TS + 4 * 3_600_000,
        eventsFrom: null,
      });
      expect(all.some((client) => client.probedWithoutDiscovery > 0)).toBe(true);
      expect(all.some((client) => client.retriedAfterRefusal > 0)).toBe(true);
    });

    // The conduct of each (client, server), as the family with both keeps it (what these migrations filled): a
    // server's clients at a time.
    const pairConduct = async (range: { from: number; to: number; eventsFrom: null }) =>
      (
        await Promise.all(['s0', 's1', 's2'].map((server) => conductRows(db.store, { ...range, server }, false)))
      ).flatMap((rows, i) => rows.map((row) => ({ ...row, server: `s${i}` })));

    it('are rebuilt by the migration that added the conduct counters, for events stored before it', async () => {
      const range = { from: BASE_TS - 3_600_000, to: BASE_TS + 4 * 3_600_000, eventsFrom: null };
      const before = await pairConduct(range);
      expect(before.length).toBeGreaterThan(6);
      const zero = CONDUCT_COLUMNS.map((column) => `${column} = 0`).join(', ');
      await db.store.run(sql.raw(`UPDATE rollup_hour SET ${zero}`));
      expect(await pairConduct(range)).not.toEqual(before);
      await replayMigration(db.store, kind.name, '0006_', withoutPairMinutes('UPDATE'));
      expect(await pairConduct(range)).toEqual(before);
    });

    it("give each server its clients' conduct from the family without clients (migration 0022 sums it)", async () => {
      // Whole 5 minutes, so that migration 0022's sums are all that is read.
      const range = { from: BASE_TS, to: BASE_TS + 2 * 3_600_000 + 5 * 60_000, eventsFrom: null };
      const perServer = new Map<string, number>();
      for (const { server, after_refusal } of await pairConduct(range)) {
        perServer.set(server, (perServer.get(server) ?? 0) + after_refusal);
      }
      const read = async () =>
        new Map((await conductRows(db.store, range, true)).map(({ server, after_refusal }) => [server, after_refusal]));
      expect([...perServer.values()].some((n) => n > 0)).toBe(true);
      expect(await read()).toEqual(perServer);
      const zero = CONDUCT_COLUMNS.map((column) => `${column} = 0`).join(', ');
      for (const level of ['5min', 'hour']) await db.store.run(sql.raw(`UPDATE rollup_server_${level} SET ${zero}`));
      expect(await read()).not.toEqual(perServer);
      await replayMigration(
        db.store,
        kind.name,
        kind.name === 'sqlite' ? '0022_' : '0021_',
        withoutPairMinutes('UPDATE'),
      );
      expect(await read()).toEqual(perServer);
    });

    it('give each client the same conduct from the family without servers as from the pairs', async () => {
      for (const range of [
        { from: BASE_TS - 3_600_000, to: BASE_TS + 4 * 3_600_000, eventsFrom: null },
        { from: BASE_TS + 12_345, to: BASE_TS + 2 * 3_600_000 + 7_777, eventsFrom: null },
      ]) {
        const perClient = new Map<string, Record<string, number>>();
        for (const { client, server: _server, ...counts } of await pairConduct(range)) {
          const sum = perClient.get(client) ?? {};
          for (const [key, value] of Object.entries(counts)) sum[key] = (sum[key] ?? 0) + value;
          perClient.set(client, sum);
        }
        const fromClients = new Map(
          (await conductRows(db.store, range, false)).map(({ client, server, ...counts }) => {
            expect(server).toBe('');
            return [client, counts as Record<string, number>] as const;
          }),
        );
        expect(fromClients.size).toBeGreaterThan(2);
        expect(fromClients).toEqual(perClient);
      }
    });

    it('are rebuilt by the migration that added the context counts, for events stored before it', async () => {
      const range = { from: BASE_TS - 3_600_000, to: BASE_TS + 4 * 3_600_000, eventsFrom: null };
      const before = await contextGapIn(db.store, range);
      await db.store.run(sql`DELETE FROM context_minute`);
      expect(await contextGapIn(db.store, range)).toEqual([]);
      await replayMigration(db.store, kind.name, '0007_', 'INSERT');
      expect(await contextGapIn(db.store, range)).toEqual(before);
    });

    it('are rebuilt by the migration that added the context counts without clients', async () => {
      const week = { from: BASE_TS - 6 * 24 * 3_600_000, to: BASE_TS + 24 * 3_600_000, eventsFrom: null };
      const tables = async () => ({
        fiveMinutes: await db.store.all(sql`SELECT * FROM context_server_5min ORDER BY 1, 2, 3, 4, 5`),
        hours: await db.store.all(sql`SELECT * FROM context_server_hour ORDER BY 1, 2, 3, 4, 5`),
      });
      const kept = await tables();
      const before = await contextGapIn(db.store, week);
      expect(before.length).toBeGreaterThan(1);
      await db.store.run(sql`DELETE FROM context_server_5min`);
      await db.store.run(sql`DELETE FROM context_server_hour`);
      expect(await contextGapIn(db.store, week)).not.toEqual(before);
      await replayMigration(db.store, kind.name, kind.name === 'sqlite' ? '0017_' : '0016_', 'INSERT');
      // What ingest kept is what the migration counts from the minutes.
      expect(await tables()).toEqual(kept);
      expect(await contextGapIn(db.store, week)).toEqual(before);
    });

    /** identity_hour as stored, and as the events count it, per hour and per slot; both in the store's own order. */
    async function identityHours() {
      const read = (query: ReturnType<typeof sql>) => db.store.all<Record<string, unknown>>(query);
      const slots = sql.raw(
        [0, 1, 2, 3, 4, 5]
          .map((k) => `sum(CASE WHEN ts % 3600000 / 600000 = ${k} THEN 1 ELSE 0 END) AS sends_${k}0`)
          .join(', '),
      );
      return {
        kept: await read(sql`SELECT start, server, identity, sends, sends_00, sends_10, sends_20, sends_30, sends_40,
            sends_50
          FROM identity_hour WHERE sends <> 0 ORDER BY 1, 2, 3`),
        counted: await read(sql`SELECT ts - ts % 3600000 AS start, server, identity, count(*) AS sends, ${slots}
          FROM events WHERE counted = 1 AND identity IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
      };
    }

    it("keep each identity's sends per hour and slot as the events count them, proxy copies once", async () => {
      const { kept, counted } = await identityHours();
      expect(kept.length).toBeGreaterThan(20);
      // Sends in more than one slot of an hour: the slots are told apart.
      expect(
        kept.some((row) => Number(row.sends) > Math.max(...[0, 1, 2, 3, 4, 5].map((k) => Number(row[`sends_${k}0`])))),
      ).toBe(true);
      expect(kept).toEqual(counted);
    });

    it('rank identities from the hour lists as grouping the events does, and say when they cannot be sure', async () => {
      let unsure = 0;
      for (const range of [
        { from: BASE_TS - 3_600_000, to: BASE_TS + 4 * 3_600_000, eventsFrom: null },
        { from: BASE_TS + 12_345, to: BASE_TS + 2 * 3_600_000 + 7_777, eventsFrom: null },
        { from: BASE_TS + 3_600_000 - 60_000, to: BASE_TS + 3_600_000 + 90_000, eventsFrom: null },
        { from: BASE_TS + 12_345, to: BASE_TS + 2 * 3_600_000 + 7_777, server: 's1', eventsFrom: null },
      ]) {
        const grouped = (await topIdentityRows(db.store, range, 4)).map((row) => row.identity);
        expect(grouped.length, JSON.stringify(range)).toBe(4);
        // One contender counted a round: the place to beat rules out the rest.
        const never = { groupUpTo: -1, countPerRound: 1 };
        const generous = await rankIdentities(db.store, range, 4, {
          ...never,
          wholeHourRows: 1000,
          edgeRows: 1000,
          maxPerHour: 100,
        });
        expect(generous).toEqual({ identities: grouped, exact: true });
        // Lists of two per hour: certain or not, what it calls certain must be the true top.
        const tight = await rankIdentities(db.store, range, 2, {
          ...never,
          wholeHourRows: 0,
          edgeRows: 0,
          maxPerHour: 2,
        });
        if (tight.exact) expect(tight.identities).toEqual(grouped.slice(0, 2));
        else unsure++;
        // Unsure over a small window: the events are grouped instead.
        const small = await rankIdentities(db.store, range, 2, {
          wholeHourRows: 0,
          edgeRows: 0,
          maxPerHour: 2,
          groupUpTo: 1e9,
          countPerRound: 1,
        });
        expect(small).toEqual({ identities: grouped.slice(0, 2), exact: true });
        const byClient = await rankIdentities(db.store, { ...range, client: 'c2' }, 3);
        const groupedByClient = await topIdentityRows(db.store, { ...range, client: 'c2' }, 3);
        expect(byClient).toEqual({ identities: groupedByClient.map((row) => row.identity), exact: true });
      }
      expect(unsure).toBeGreaterThan(0);
    });

    it('rank a week over a few hours of traffic as those hours, and are as sure of it', async () => {
      const week = { from: BASE_TS - 6 * 24 * 3_600_000 + 17, to: BASE_TS + 24 * 3_600_000, eventsFrom: null };
      const grouped = (await topIdentityRows(db.store, week, 4)).map((row) => row.identity);
      // 1000 list rows shared by the 4 hours that hold sends are every re-sent identity; shared by a week's 168
      // hours, 5 an hour, and a week of hours each of which might hold one more send of any identity.
      const ranking = await rankIdentities(db.store, week, 4, {
        groupUpTo: -1,
        countPerRound: 1,
        wholeHourRows: 1000,
        edgeRows: 1000,
        maxPerHour: 100,
      });
      expect(ranking).toEqual({ identities: grouped, exact: true });
      const before = { from: BASE_TS - 24 * 3_600_000, to: BASE_TS, eventsFrom: null };
      expect(await rankIdentities(db.store, before, 4)).toEqual({ identities: [], exact: true });
    });

    it("keep each server's context gap as the events tell it, over any range", async () => {
      let reported = 0;
      for (const range of [
        { from: BASE_TS - 3_600_000, to: BASE_TS + 4 * 3_600_000, eventsFrom: null },
        { from: BASE_TS + 12_345, to: BASE_TS + 2 * 3_600_000 + 7_777, eventsFrom: null },
        { from: BASE_TS + 3_600_000, to: BASE_TS + 3_600_000 + 90_000, client: 'c1', eventsFrom: null },
        // A day and a week: charted per 5 minutes and per hour, from the counts without clients.
        { from: BASE_TS - 20 * 3_600_000 + 4_321, to: BASE_TS + 3 * 3_600_000 + 12_345, eventsFrom: null },
        { from: BASE_TS - 6 * 24 * 3_600_000, to: BASE_TS + 4 * 3_600_000 - 61_000, server: 's1', eventsFrom: null },
        { from: BASE_TS - 20 * 3_600_000, to: BASE_TS + 4 * 3_600_000, client: 'c2', eventsFrom: null },
      ]) {
        const { events: loaded } = await loadAnalysis(db.store, { ...range, samplingOnly: true });
        const step = stepFor(range.to - range.from);
        const fromEvents = [...contextGapByServer(loaded)].map(
          ([server, gap]) =>
            [server, { ...gapSummary(gap), trend: contextTrend(gap, range.from, range.to, step) }] as const,
        );
        const fromCounts = (await contextGapIn(db.store, range)).map(
          ({ server, step: _step, ...gap }) => [server, gap] as const,
        );
        expect(new Map(fromCounts)).toEqual(new Map(fromEvents));
        for (const [server, gap] of fromCounts) {
          const sampled = Object.values(gap.matrix).reduce(
            (sum, row) => sum + Object.values(row).reduce((a, b) => a + b, 0),
            0,
          );
          // The points add up to the matrix: none of the window's requests is left out of the chart.
          expect(
            gap.trend.reduce((sum, point) => sum + point.sampled, 0),
            server,
          ).toBe(sampled);
        }
        reported += fromEvents.length;
      }
      expect(reported).toBeGreaterThan(3);
    });

    it("keep each server's failures per code as the events count them, over any range", async () => {
      let rows = 0;
      for (const server of ['s0', 's1', 's2']) {
        for (const range of [
          { from: BASE_TS - 3_600_000, to: BASE_TS + 4 * 3_600_000, eventsFrom: null },
          { from: BASE_TS + 12_345, to: BASE_TS + 2 * 3_600_000 + 7_777, eventsFrom: null },
          { from: BASE_TS + 3_600_000 - 60_000, to: BASE_TS + 3_600_000 + 90_500, eventsFrom: null },
        ]) {
          const scope = { ...range, server };
          const kept = await codeCounts(db.store, scope);
          expect(kept, JSON.stringify(scope)).toEqual(await rawCodeCounts(db.store, scope));
          rows += kept.length;
        }
      }
      expect(rows).toBeGreaterThan(20);
      // The override made s2's 503s refusals (gone): they moved out of the transient counts.
      const s2 = await codeCounts(db.store, { server: 's2', from: 0, to: BASE_TS + 4 * 3_600_000, eventsFrom: null });
      expect(s2.filter((row) => row.httpStatus === 503).map((row) => [row.bucket, row.kind])).toEqual([
        ['refusal', 'gone'],
      ]);
    });

    it('are rebuilt by the migration that added the code counts, for events stored before it', async () => {
      const scope = {
        server: 's1',
        from: 0,
        to: BASE_TS + 5 * 3_600_000 - ((BASE_TS + 5 * 3_600_000) % 3_600_000),
        eventsFrom: null,
      };
      const before = await codeCounts(db.store, scope);
      expect(before.length).toBeGreaterThan(3);
      await db.store.run(sql`DELETE FROM code_minute`);
      await db.store.run(sql`DELETE FROM code_hour`);
      expect(await codeCounts(db.store, scope)).toEqual([]);
      await replayMigration(db.store, kind.name, kind.name === 'sqlite' ? '0016_' : '0015_', 'INSERT');
      expect(await codeCounts(db.store, scope)).toEqual(before);
    });

    it('keep per-kind counts and avoidable counts in step with the events', async () => {
      const raw = await rawBucketCounts(db.store, {});
      const rolled = await countRows(db.store, { eventsFrom: null }, null, ['server', 'client', 'kind']);
      const key = (r: { server: string; client: string | null; bucket: string; kind: string }) =>
        `${r.server}|${r.client ?? ''}|${r.bucket}|${r.kind}`;
      expect(new Map(rolled.map((r) => [key(r), r.requests]))).toEqual(new Map(raw.map((r) => [key(r), r.count])));
      expect(raw.some((r) => r.kind === 'gone')).toBe(true);
      const avoidable = await db.store.all<{ n: number }>(
        sql`SELECT count(*) AS n FROM events WHERE counted = 1 AND avoidable = 1`,
      );
      expect(rolled.reduce((n, r) => n + r.avoidable, 0)).toBe(Number(avoidable[0]?.n));
    });
  });
});

describe('keyed tables on SQLite', () => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTempSqlite();
    const events = mixedTraffic(800, 5);
    for (let i = 0; i < events.length; i += 200) {
      await ingestFolded(
        db.store,
        events.slice(i, i + 200).map((value, n) => ({ line: n + 1, value })),
      );
    }
  });
  afterAll(async () => db.dispose());

  const keyed = sql`SELECT name, sql FROM sqlite_master
    WHERE type = 'table' AND (name LIKE 'rollup%' OR name IN ('gate_keys', 'context_minute')) ORDER BY name`;

  it('are the counter tables of db/counters/levels.ts, no more and no fewer', async () => {
    const stored = await db.store.all<{ name: string }>(sql`SELECT name FROM sqlite_master WHERE type = 'table'
      AND (name LIKE 'rollup%' OR name LIKE 'code%' OR name LIKE 'context%' OR name LIKE 'identity%'
        OR name LIKE 'actionability%' OR name LIKE 'era%' OR name LIKE 'method_failure%'
        OR name IN ('denial_hour', 'denial_client_hour', 'denial_server_hour'))
      ORDER BY name`);
    expect(stored.map((table) => table.name)).toEqual(COUNTER_TABLES.map((level) => level.table).sort());
  });

  it('are stored WITHOUT ROWID, with no second B-tree for their key', async () => {
    const tables = await db.store.all<{ name: string; sql: string }>(keyed);
    expect(tables.length).toBe(16);
    for (const table of tables) expect(table.sql, table.name).toMatch(/WITHOUT ROWID$/);
    const autoindexes = await db.store.all<{ name: string }>(
      sql`SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'sqlite_autoindex_%'
        AND (tbl_name LIKE 'rollup%' OR tbl_name IN ('gate_keys', 'context_minute'))`,
    );
    expect(autoindexes).toEqual([]);
  });

  it('keep every row and index through the migration that rebuilds them', async () => {
    // Tables that changed shape since (gate_keys in migration 0020, the server family in 0022) or went (the pair
    // family's minutes): what 0015 did to them cannot be done again.
    const rebuilt = (statement: string) =>
      !/\b(gate_keys|rollup_minute|rollup_server_(minute|5min|hour))(_new)?\b/.test(statement);
    const tables = (await db.store.all<{ name: string; sql: string }>(keyed)).filter((table) => rebuilt(table.sql));
    const contents = async () => {
      const out = new Map<string, unknown[]>();
      for (const { name } of tables)
        out.set(name, await db.store.all(sql.raw(`SELECT * FROM ${name} ORDER BY 1, 2, 3, 4`)));
      return out;
    };
    const indexes = sql`SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name`;
    const [before, indexesBefore] = [await contents(), await db.store.all(indexes)];
    expect([...before.values()].filter((rows) => rows.length > 0).length).toBeGreaterThan(8);
    await replayMigration(db.store, 'sqlite', '0015_', rebuilt);
    expect(await contents()).toEqual(before);
    expect(await db.store.all(indexes)).toEqual(indexesBefore);
  });
});

describe("one client's requests to one server on SQLite", () => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTempSqlite();
  });
  afterAll(async () => db.dispose());

  const planOf = (run: (db: SqlRunner) => Promise<unknown>) => queryPlan(db.store, run);

  it("are read through the client's index, which checks the server in its entries", async () => {
    const window = { client: 'c1', server: 's1', from: BASE_TS, to: BASE_TS + 3_600_000, eventsFrom: null };
    for (const plan of [
      await planOf((runner) => analysisRows(runner, window)),
      await planOf((runner) => partitionsEvents(runner, [{ client: 'c1', server: 's1' }])),
    ]) {
      expect(plan.map((step) => step.detail).join('\n')).toMatch(/USING INDEX events_client_ts_server_idx/);
    }
  });
});
