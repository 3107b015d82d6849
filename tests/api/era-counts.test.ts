import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldAll } from '../../api/services/fold.ts';
import { backfillRequestFacts } from '../../api/services/request-facts.ts';
import { applyRetention } from '../../api/services/retention.ts';
import { setOverrides } from '../../api/services/server-config.ts';
import { CountChanges } from '../../db/counters/changes.ts';
import { type EraCountRow, type EraCountsBy, eraCounts, rawEraCounts } from '../../db/counters/eras.ts';
import { identityText } from '../../db/stored-identity.ts';
import { DAY_MS, HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { corpusText } from '../support/corpus.ts';
import { BASE_TS } from '../support/events.ts';
import { ingestFolded } from '../support/ingest.ts';
import { replayMigration } from '../support/migrations.ts';
import { STORE_KINDS, skipOnCitus, type TestStore } from '../support/stores.ts';
import { mixedTraffic } from '../support/traffic.ts';

const MINUTE = 60_000;
/** The corpus of MCP 2026-07-28 traffic, copied six times 41 minutes and 7.3 seconds apart from BASE_TS on. */
const COPIES = 6;
const APART = 41 * MINUTE + 7_300;

function v2Copies(): Record<string, unknown>[] {
  const lines = corpusText('mcp-ts-v2', 'client.ndjson')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const first = Date.parse(String(lines[0]?.ts));
  return Array.from({ length: COPIES }, (_, copy) =>
    lines.map((line) => {
      const ts = Date.parse(String(line.ts)) - first + BASE_TS + copy * APART + 13_500;
      return { ...line, id: `${line.id}-${copy}`, ts: new Date(ts).toISOString() };
    }),
  ).flat();
}

const WHOLE = { from: 0, to: BASE_TS + 6 * HOUR_MS, eventsFrom: null };
const RANGES = [
  WHOLE,
  { from: BASE_TS + 123_456, to: BASE_TS + 2 * HOUR_MS + 7_891, eventsFrom: null },
  { from: BASE_TS + HOUR_MS, to: BASE_TS + 2 * HOUR_MS, eventsFrom: null },
  { from: BASE_TS + 13_999, to: BASE_TS + 14_001 + MINUTE, eventsFrom: null },
  { from: BASE_TS + APART, to: BASE_TS + APART + 40_000, eventsFrom: null },
];
const BY: EraCountsBy[] = ['server', 'client'];

const total = (rows: EraCountRow[], column: keyof EraCountRow = 'requests') =>
  rows.reduce((n, row) => n + Number(row[column]), 0);

const ERA_REPLAY =
  "replays migration era_counts's INSERT ... SELECT on a placed store, which no Citus store goes through (lens citus-setup places a store after its migrations): it reads events beside the coordinator-local fold_queue (a correlated NOT EXISTS), a join Citus refuses";

describe.each(STORE_KINDS)('era counts on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    beforeAll(async () => {
      db = await kind.open();
      // Out of order, a batch sent twice, proxy records shadowed by their clients' (mixedTraffic), and MRTR rounds.
      const events = [...mixedTraffic(900, 13), ...v2Copies()].sort((a, b) => String(a.id).localeCompare(String(b.id)));
      for (let i = 0; i < events.length; i += 250) {
        await ingestFolded(
          db.store,
          events.slice(i, i + 250).map((value, n) => ({ line: n + 1, value })),
        );
      }
      await ingestFolded(
        db.store,
        events.slice(0, 200).map((value, n) => ({ line: n + 1, value })),
      );
    });
    afterAll(async () => db.dispose());

    const all = (by: EraCountsBy) => eraCounts(db.store, WHOLE, by);

    it('count exactly what the counted events carry, per server and per client, over any range', async () => {
      for (const range of RANGES) {
        for (const by of BY) {
          const kept = await eraCounts(db.store, range, by);
          expect(kept, `${by} ${JSON.stringify(range)}`).toEqual(await rawEraCounts(db.store, range, by));
          // One name's counts are its rows of the whole answer.
          const one = kept.find((row) => row.name !== '');
          if (one === undefined) continue;
          const named = await eraCounts(db.store, range, by, one.name);
          expect(named).toEqual(kept.filter((row) => row.name === one.name));
        }
      }
      // Every counted event is in, once; each era and each MRTR count has some.
      const [counted] = await db.store.all<{ n: number | string }>(sql`SELECT count(*) AS n FROM events
        WHERE counted = 1`);
      for (const by of BY) expect(total(await all(by))).toBe(Number(counted?.n));
      const servers = await all('server');
      const atlas = servers.filter((row) => row.name === 'atlas-notes');
      // Both eras, and what nothing tells (GET /.well-known/mcp.json, a body that is not JSON).
      expect(atlas.map((row) => row.era)).toEqual([null, '2025', '2026']);
      // Per copy of the corpus: 5 input requests, 6 continuations, 5 calls that asked with 10 rounds among them.
      expect(atlas.find((row) => row.era === '2026')).toMatchObject({
        pending: 5 * COPIES,
        continuations: 6 * COPIES,
        calls: 5 * COPIES,
        rounds: 10 * COPIES,
      });
      // ledger-legacy answered 2 era probes per copy as a 2025-only server does; mixedTraffic's proxy lines say no era.
      expect(servers.find((row) => row.name === 'ledger-legacy' && row.era === '2026')).toMatchObject({
        requests: 2 * COPIES,
        legacy: 2 * COPIES,
      });
      expect(servers.some((row) => row.era === null && row.name === 's1')).toBe(true);
    });

    it('follow a reclassification: an override of -32602 makes the rejected requestState a round of its call', async () => {
      const before = (await all('server')).find((row) => row.name === 'atlas-notes' && row.era === '2026');
      await setOverrides({
        ctx: { db: db.store, now: BASE_TS },
        input: {
          server: 'atlas-notes',
          overrides: [{ match: { rpcCode: -32602 }, bucket: 'ambiguous', kind: 'gone' }],
        },
      });
      const after = (await all('server')).find((row) => row.name === 'atlas-notes' && row.era === '2026');
      expect(after?.rounds).toBe((before?.rounds ?? 0) + COPIES);
      for (const by of BY) expect(await all(by)).toEqual(await rawEraCounts(db.store, WHOLE, by));
    });

    it('are what migration era_counts fills from the stored events', async ({ skip }) => {
      skipOnCitus(skip, kind, ERA_REPLAY);
      const before = { server: await all('server'), client: await all('client') };
      for (const table of ['era_server_minute', 'era_server_hour', 'era_client_minute', 'era_client_hour']) {
        await db.store.run(sql.raw(`DELETE FROM ${table}`));
      }
      expect(await all('server')).toEqual([]);
      await replayMigration(db.store, kind.name, 'era_counts', 'INSERT');
      expect({ server: await all('server'), client: await all('client') }).toEqual(before);
    });

    it('move from no era to the era read from the line for events stored before the era was kept', async ({ skip }) => {
      skipOnCitus(skip, kind, ERA_REPLAY);
      const before = { server: await all('server'), client: await all('client') };
      const sends = async () =>
        Number((await db.store.all<{ n: number }>(sql`SELECT sum(sends) AS n FROM identity_hour`))[0]?.n ?? 0);
      const sendsBefore = await sends();
      // The release before counted every round as a send of its identity: the continuations' sends added back.
      const rounds = await db.store.all<{ ts: number | string; server: string; identity: string }>(sql`SELECT ts,
          server, ${identityText(db.store, 'events')} AS identity FROM events
        WHERE continuation = 1 AND counted = 1 AND identity IS NOT NULL AND event_id <> 'harbor-agent-006-0'`);
      expect(rounds.length).toBeGreaterThan(10);
      const oldSends = new CountChanges();
      for (const r of rounds) oldSends.addSend({ ts: Number(r.ts), server: r.server, identity: r.identity }, 1);
      await db.store.transaction((tx) => oldSends.write(tx));
      expect(await sends()).toBe(sendsBefore + rounds.length);
      // As migration storms_by_sender leaves a store it upgrades: the facts unread, counted under no era.
      await db.store.run(sql`UPDATE events SET era = NULL, protocol_version = NULL, continuation = 0, rpc_name = NULL`);
      await db.store.run(sql`DELETE FROM settings WHERE key LIKE 'request_facts_v1%'`);
      for (const table of ['era_server_minute', 'era_server_hour', 'era_client_minute', 'era_client_hour']) {
        await db.store.run(sql.raw(`DELETE FROM ${table}`));
      }
      // One counted MRTR round still queued for its fold (stored just before the upgrade): its fold counts it.
      const [queued] = await db.store.all<{ seq: number | string; ts: number | string }>(
        sql`SELECT seq, ts FROM events WHERE counted = 1 AND event_id = 'harbor-agent-006-0'`,
      );
      const seq = Number(queued?.seq);
      await db.store.run(sql`INSERT INTO fold_queue (first_seq, last_seq, min_ts, committed_at)
        VALUES (${seq}, ${seq}, ${Number(queued?.ts)}, ${BASE_TS})`);
      await replayMigration(db.store, kind.name, 'era_counts', 'INSERT');
      expect((await all('server')).every((row) => row.era === null)).toBe(true);
      expect(await backfillRequestFacts(db.store)).toBeGreaterThan(500);
      const atlas = (await all('server')).find((row) => row.name === 'atlas-notes' && row.era === '2026');
      const was = before.server.find((row) => row.name === 'atlas-notes' && row.era === '2026');
      const less = (column: 'requests' | 'continuations' | 'rounds') => (was?.[column] ?? 0) - 1;
      expect(atlas).toEqual({
        ...was,
        requests: less('requests'),
        continuations: less('continuations'),
        rounds: less('rounds'),
      });
      await foldAll(db.store);
      expect({ server: await all('server'), client: await all('client') }).toEqual(before);
      // The rounds read as continuations are no sends any more: the identity hours are as a fresh store has them.
      expect(await sends()).toBe(sendsBefore);
    });

    it('keep their hours past the events horizon, and go at the counts horizon', async () => {
      const hours = { from: BASE_TS - HOUR_MS, to: BASE_TS + 5 * HOUR_MS, eventsFrom: null };
      const before = {
        server: await eraCounts(db.store, hours, 'server'),
        client: await eraCounts(db.store, hours, 'client'),
      };
      expect(total(before.server)).toBeGreaterThan(1000);
      // Events (and minutes) kept from the day after the traffic, hours kept: a range reads them in whole hours.
      const now = BASE_TS + 2 * DAY_MS;
      await applyRetention(db.store, { eventsMs: DAY_MS, countsMs: 10 * DAY_MS }, now);
      const eventsFrom = BASE_TS - (BASE_TS % DAY_MS) + DAY_MS;
      const [minutes] = await db.store.all<{ n: number | string }>(
        sql`SELECT (SELECT count(*) FROM era_server_minute) + (SELECT count(*) FROM era_client_minute) AS n`,
      );
      expect(Number(minutes?.n)).toBe(0);
      const halfHour = { from: hours.from + HOUR_MS / 2, to: hours.to, eventsFrom };
      expect(await eraCounts(db.store, halfHour, 'server')).toEqual(before.server);
      expect(await eraCounts(db.store, halfHour, 'client')).toEqual(before.client);
      await applyRetention(db.store, { eventsMs: DAY_MS, countsMs: DAY_MS }, now);
      expect(await eraCounts(db.store, { ...halfHour, eventsFrom }, 'server')).toEqual([]);
    });
  });
});
