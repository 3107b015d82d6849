import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactColdEvents } from '../../api/services/compaction.ts';
import { Folder } from '../../api/services/fold.ts';
import { replayServer } from '../../api/services/gate-maintenance.ts';
import { ingestBatch } from '../../api/services/ingest.ts';
import { applyRetention } from '../../api/services/retention.ts';
import { CountChanges } from '../../db/counters/changes.ts';
import { COLD_BLOCK_ROWS, type ColdEvent, unpackColdEvents } from '../../db/queries/cold-events.ts';
import { storedEventCount } from '../../db/queries/store-size.ts';
import { openStore } from '../../db/store.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { CORPORA, corpusText } from '../support/corpus.ts';
import { BASE_TS, clientEvent, proxyEvent, rpcError } from '../support/events.ts';
import { inBetweenScenario } from '../support/in-between.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';
import { tableRows } from '../support/tables.ts';
import { mixedTraffic } from '../support/traffic.ts';

/**
 * Compaction (issue 41 item 1, docs/adr/0021-cold-events-in-blocks.md): the events past the hot window leave their
 * rows for column blocks of a server's hour. Every event is then in exactly one place, whole (its columns, its
 * verdicts, its line); the counts read the same; an event sent again after it was packed is a duplicate, not a
 * second event; retention takes the blocks with their day.
 */

const DAY_MS = 24 * HOUR_MS;
const DAY0 = Date.parse('2026-10-01T00:00:00Z');
const SERVERS = ['docs', 'files', 'search'];

/** `perHour` requests an hour for `hours` hours from `start`: every fifth refused, each third seen by the proxy too. */
function traffic(start: number, hours: number, perHour: number, tag: string) {
  const events: Record<string, unknown>[] = [];
  for (let hour = 0; hour < hours; hour++) {
    for (let k = 0; k < perHour; k++) {
      const n = hour * perHour + k;
      const ts = new Date(start + hour * HOUR_MS + k * Math.floor(HOUR_MS / perHour) + 7_000).toISOString();
      const server = SERVERS[n % SERVERS.length];
      const refused = n % 5 === 0;
      events.push(
        clientEvent({
          id: `${tag}-${n}`,
          ts,
          client: `agent-${n % 4}`,
          server,
          // Unicode in a name and a line: what is packed is what comes back.
          request: {
            jsonrpc: '2.0',
            id: n,
            method: 'tools/call',
            params: { name: `outil-${n % 9}-é🙂`, arguments: {} },
          },
          ...(refused && { response: rpcError(-32601, 'Method not found') }),
        }),
      );
      if (n % 3 === 0) {
        events.push(proxyEvent({ id: `${tag}-p${n}`, ts, server, http: { status: refused ? 404 : 200 } }));
      }
    }
  }
  return events;
}

async function ingest(app: TestApp, events: readonly Record<string, unknown>[]) {
  let duplicates = 0;
  for (let i = 0; i < events.length; i += 2000) {
    const response = await postNdjson(app, events.slice(i, i + 2000));
    expect(response.status).toBe(200);
    duplicates += ((await response.json()) as { duplicates: number }).duplicates;
  }
  return duplicates;
}

async function json(app: TestApp, path: string) {
  const res = await get(app, path);
  expect(res.status, path).toBe(200);
  return res.json();
}

const range = (from: number, to: number) => `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;

/** Every number the counts answer for the range, none read from single events. */
async function counts(app: TestApp, from: number, to: number) {
  const r = range(from, to);
  return {
    summary: await json(app, `/api/v1/summary?${r}`),
    hours: await json(app, `/api/v1/timeseries?${r}&step=1h`),
    servers: await json(app, `/api/v1/servers?${r}`),
    clients: await json(app, `/api/v1/clients?${r}`),
    storms: await json(app, `/api/v1/storms?${r}&limit=1000`),
  };
}

/** Each stored row as a cold block keeps it, by event id: every column and the line. */
async function storedRows(db: TestStore): Promise<Map<string, Record<string, unknown>>> {
  const rows = await db.store.all<{ eventId: string; ts: number | string; bucket: string; avoidable: number }>(
    sql`SELECT event_id AS "eventId", ts, bucket, kind, rule, counted, partner, avoidable, gate_reason AS "gateReason",
      blocked_by AS "blockedBy", act_profile AS "actProfile", client, server FROM events`,
  );
  return new Map(rows.map((row) => [row.eventId, { ...row, ts: Number(row.ts) }]));
}

function pick(event: ColdEvent, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, event[key as keyof ColdEvent]]));
}

async function blocks(db: TestStore) {
  const rows = await db.store.all<{ server: string; hour: number | string; rows: number; data: Uint8Array }>(
    sql`SELECT server, hour, rows, data FROM cold_blocks`,
  );
  return rows.map((row) => ({ ...row, hour: Number(row.hour), events: unpackColdEvents(row.data) }));
}

describe.each(STORE_KINDS)('compaction on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    it('packs every event past the hot window into blocks of a server and hour, whole, and the counts stay', async () => {
      const events = traffic(DAY0, 30, 12, 'c');
      expect(await ingest(app, events)).toBe(0);
      const now = DAY0 + 30 * HOUR_MS + 20 * 60_000;
      const before = await counts(app, DAY0, now);
      const rows = await storedRows(db);
      expect(rows.size).toBe(events.length);
      // A range whose ends fall inside minutes (10:00:30 to 12:05:03), and the whole minutes around it.
      const cut = [DAY0 + 10 * HOUR_MS + 30_000, DAY0 + 12 * HOUR_MS + 5 * 60_000 + 3_000] as const;
      const wide = [DAY0 + 10 * HOUR_MS, DAY0 + 12 * HOUR_MS + 6 * 60_000] as const;
      const exactCut = await json(app, `/api/v1/summary?${range(...cut)}`);
      const exactWide = await json(app, `/api/v1/summary?${range(...wide)}`);
      expect(exactWide.overall.total).toBeGreaterThan(exactCut.overall.total);

      // A hot window of 6 h from 06:20 after the last hour: everything before hour 24 is packed.
      const done = await compactColdEvents(db.store, 6 * HOUR_MS, now);
      const cold = DAY0 + 24 * HOUR_MS;
      const packed = [...rows.values()].filter((row) => (row.ts as number) < cold).length;
      expect(done).toMatchObject({ events: packed, stopped: false });
      expect(await tableRows(db.store, 'events')).toBe(events.length - packed);
      // What `lens serve` says the store holds counts both forms.
      expect(await storedEventCount(db.store)).toBe(events.length);
      // The line blocks that only packed events read are gone with them.
      const stillRead = await db.store.all(sql`SELECT DISTINCT body_block FROM events`);
      expect(await tableRows(db.store, 'event_bodies')).toBe(stillRead.length);

      const found = await blocks(db);
      expect(found).toHaveLength(done.blocks);
      const seen = new Map<string, ColdEvent>();
      for (const block of found) {
        expect(block.rows).toBe(block.events.length);
        expect(block.rows).toBeLessThanOrEqual(COLD_BLOCK_ROWS);
        for (const event of block.events) {
          expect(event.server).toBe(block.server);
          expect(Math.floor(event.ts / HOUR_MS) * HOUR_MS).toBe(block.hour);
          expect(seen.has(event.eventId), event.eventId).toBe(false);
          seen.set(event.eventId, event);
        }
      }
      expect(seen.size).toBe(packed);
      for (const [id, event] of seen) {
        const { eventId: _, server: __, ...stored } = rows.get(id) ?? {};
        expect(pick(event, Object.keys(stored)), id).toEqual(stored);
        // The line as it arrived, Unicode included.
        const sent = events.find((e) => e.id === id);
        expect(JSON.parse(event.body)).toEqual(sent);
      }

      // Every count reads as before: they are of the events, not of their form.
      expect(await counts(app, DAY0, now)).toEqual(before);
      // Where the rows begin is declared; before it, a range's ends are read in whole minutes, as the health says.
      expect((await json(app, '/api/v1/health')).kept.rowsFrom).toBe(cold);
      expect(await json(app, `/api/v1/summary?${range(...cut)}`)).toEqual({
        ...exactWide,
        range: exactCut.range,
      });

      // A second pass finds nothing more to pack.
      expect(await compactColdEvents(db.store, 6 * HOUR_MS, now)).toEqual({
        events: 0,
        blocks: 0,
        discarded: 0,
        stopped: false,
      });
    });

    it("reads a storm's attempts, the identities' sends and a server's page from the blocks as from the rows", async () => {
      await ingest(app, mixedTraffic(2500, 7));
      // The traffic spans 10:00 to 13:00 on BASE_TS's day; a 2 h window at 16:00 leaves it all packed.
      const now = BASE_TS + 6 * HOUR_MS;
      const r = range(BASE_TS - HOUR_MS, now);
      const storms = (await json(app, `/api/v1/storms?${r}&limit=1000`)).storms as { id: string }[];
      expect(storms.length).toBeGreaterThan(3);
      const details = async () =>
        Promise.all(storms.map(async ({ id }) => json(app, `/api/v1/storms/${encodeURIComponent(id)}`)));
      const stormsBefore = await details();
      expect(stormsBefore.some((storm) => storm.timeline.length > 0)).toBe(true);
      const identities = async () => ({
        top: await json(app, `/api/v1/identities?${r}&limit=20`),
        alarmed: await json(app, `/api/v1/identities?${r}&limit=20&only=alarmed`),
        // A client's identities are grouped from its sends, not ranked from the hour lists.
        client: await json(app, `/api/v1/identities?${r}&limit=20&client=c1`),
        cut: await json(
          app,
          `/api/v1/identities?${range(BASE_TS + 10 * 60_000 + 7, BASE_TS + 2 * HOUR_MS + 1)}&limit=20`,
        ),
      });
      const identitiesBefore = await identities();
      // A server's page: its sources sample among them.
      const pages = async () =>
        Promise.all(['s0', 's1', 's2'].map((server) => json(app, `/api/v1/servers/${server}?${r}`)));
      const pagesBefore = await pages();
      expect(pagesBefore[0].sources.records).toBeGreaterThan(0);
      expect(identitiesBefore.top.identities.length).toBeGreaterThan(0);

      await compactColdEvents(db.store, 2 * HOUR_MS, now);
      expect(await tableRows(db.store, 'events')).toBe(0);
      expect(await details()).toEqual(stormsBefore);
      expect(await identities()).toEqual(identitiesBefore);
      expect(await pages()).toEqual(pagesBefore);
    });

    it('reads the denials that did not hold, their lines and probes, from the blocks as from the rows', async () => {
      for (const corpus of CORPORA) {
        expect((await postNdjson(app, corpusText(corpus, 'client.ndjson').trim().split('\n'))).status).toBe(200);
      }
      // MCP 2026-07-28's denials, whose "in between" reads the two lines and looks for a probe.
      await postNdjson(app, inBetweenScenario().events);
      // Without the analysis' clock: when it was read is not what it read.
      const read = async (r: string) => {
        const { analysedThrough: _, lagMs: __, ...answer } = await json(app, `/api/v1/denials?${r}`);
        return answer;
      };
      const denials = async () => ({
        corpus: await read('from=2026-12-01&to=2026-12-03'),
        inBetween: await read(range(BASE_TS - HOUR_MS, BASE_TS + HOUR_MS)),
      });
      const before = await denials();
      expect(before.corpus.total).toBeGreaterThan(0);
      expect(before.inBetween.items.some((item: { reprobed: boolean | null }) => item.reprobed === true)).toBe(true);
      expect(before.inBetween.items.some((item: { restarted: boolean | null }) => item.restarted === true)).toBe(true);
      await compactColdEvents(db.store, 2 * HOUR_MS, Date.parse('2026-12-04T00:00:00Z'));
      expect(await tableRows(db.store, 'events')).toBe(0);
      expect(await denials()).toEqual(before);
      // Compaction moved each audit's base up to its horizon (ADR 15); a checkpoint moved with it is stored once.
      const stored = await db.store.all<{ once: number | string; twice: number | string }>(sql`SELECT
        sum(CASE WHEN checkpoint IS NULL THEN 1 ELSE 0 END) AS once,
        sum(CASE WHEN checkpoint IS NOT NULL THEN 1 ELSE 0 END) AS twice
        FROM denial_identity WHERE checkpoint_at = base_at`);
      expect(Number(stored[0]?.once)).toBeGreaterThan(0);
      expect(Number(stored[0]?.twice)).toBe(0);
    });

    it('judges late events and replays after the packed hours as a store never compacted does (the checkpoint)', async () => {
      const reference = await kind.open();
      const plain = createTestApp(reference.store);
      try {
        const traffic = mixedTraffic(2500, 7);
        await ingest(app, traffic);
        await ingest(plain, traffic);
        // The traffic spans 10:00 to 13:00; a 2 h window at 14:01 packs 10:00 to 12:00, the rest stays rows.
        const now = BASE_TS + 4 * HOUR_MS + 60_000;
        const done = await compactColdEvents(db.store, 2 * HOUR_MS, now);
        expect(done.events).toBeGreaterThan(1500);
        const whole = () => counts(app, BASE_TS - HOUR_MS, now);
        const reference_ = () => counts(plain, BASE_TS - HOUR_MS, now);
        expect(await whole()).toEqual(await reference_());

        // Late events just after the horizon, for every pair: each replays its partition over hours partly packed.
        const late = ['c0', 'c1', 'c2', 'c3'].flatMap((client, c) =>
          ['s0', 's1', 's2'].map((server, s) =>
            clientEvent({
              ts: new Date(BASE_TS + 2 * HOUR_MS + 5_000 + (c * 3 + s) * 1_000).toISOString(),
              client,
              server,
              request: { jsonrpc: '2.0', id: 9_000 + c * 3 + s, method: 'tools/call', params: { name: `t${s}` } },
              ...((c + s) % 2 === 0 && { response: rpcError(-32602, 'bad') }),
            }),
          ),
        );
        await ingest(app, late);
        await ingest(plain, late);
        const after = await whole();
        expect(after.storms.storms.length).toBeGreaterThan(10);
        expect(after).toEqual(await reference_());

        // A replay of every pair from its checkpoint (a reclassification's) leaves every number as it was.
        for (const store of [db.store, reference.store]) {
          await store.transaction(async (tx) => {
            const counts = new CountChanges();
            for (const server of ['s0', 's1', 's2']) counts.verdicts(await replayServer(tx, server));
            await counts.write(tx);
          });
        }
        expect(await whole()).toEqual(after);
        expect(await reference_()).toEqual(after);
      } finally {
        await reference.dispose();
      }
    });

    it('takes an event sent again after it was packed as a duplicate, and a new late event as an event', async () => {
      const events = traffic(DAY0, 4, 10, 'd');
      await ingest(app, events);
      const now = DAY0 + 10 * HOUR_MS;
      const before = await counts(app, DAY0, now);
      await compactColdEvents(db.store, 2 * HOUR_MS, now);
      expect(await tableRows(db.store, 'events')).toBe(0);

      // The shipper sends everything again: all duplicates, nothing stored or counted twice.
      expect(await ingest(app, events)).toBe(events.length);
      expect(await tableRows(db.store, 'events')).toBe(0);
      expect(await counts(app, DAY0, now)).toEqual(before);

      // An event of a packed hour that was never sent before is stored, counted, and packed by the next pass.
      const late = clientEvent({ id: 'late-1', ts: new Date(DAY0 + HOUR_MS + 1_234).toISOString(), server: 'docs' });
      expect(await ingest(app, [late])).toBe(0);
      const after = await json(app, `/api/v1/summary?${range(DAY0, now)}`);
      expect(after.overall.total).toBe(before.summary.overall.total + 1);
      expect(await compactColdEvents(db.store, 2 * HOUR_MS, now)).toMatchObject({ events: 1, blocks: 1 });
      expect(await ingest(app, [late])).toBe(1);
    });

    it('leaves rows the fold has not counted yet, and packs them once it has', async () => {
      const events = traffic(DAY0, 2, 10, 'q');
      await ingest(app, events);
      // A batch stored but not yet folded (the fold runs behind the commit): compaction stops at it.
      const queued = traffic(DAY0, 1, 3, 'u');
      await ingestBatch(
        db.store,
        queued.map((event, i) => ({ line: i + 1, text: JSON.stringify(event) })),
      );
      const now = DAY0 + 10 * HOUR_MS;
      const first = await compactColdEvents(db.store, 2 * HOUR_MS, now);
      expect(first.stopped).toBe(true);
      expect(await tableRows(db.store, 'events')).toBe(events.length + queued.length - first.events);
      // Once folded, the next pass packs the rest.
      const folder = new Folder(db.store, {});
      folder.kick();
      await folder.settled();
      await folder.stop();
      const second = await compactColdEvents(db.store, 2 * HOUR_MS, now);
      expect(second.stopped).toBe(false);
      expect(await tableRows(db.store, 'events')).toBe(0);
      expect(first.events + second.events).toBe(events.length + queued.length);
    });

    it('takes the blocks of the days past the events horizon with them', async () => {
      await ingest(app, traffic(DAY0, 72, 2, 'r'));
      const now = DAY0 + 3 * DAY_MS;
      await compactColdEvents(db.store, 12 * HOUR_MS, now);
      const packed = (await blocks(db)).reduce((n, block) => n + block.rows, 0);
      expect(packed).toBeGreaterThan(0);
      // Events kept 2 days from now, from day 1 00:00: day 0's blocks go, and are counted as events.
      const done = await applyRetention(db.store, { eventsMs: 2 * DAY_MS, countsMs: 10 * DAY_MS }, now);
      const left = await blocks(db);
      expect(left.every((block) => block.hour >= DAY0 + DAY_MS)).toBe(true);
      expect(done.events).toBe(packed - left.reduce((n, block) => n + block.rows, 0));
      // Day 0: 48 requests, and the proxy's records of every third.
      expect(done.events).toBe(48 + 16);
    });
  });
});

describe('compaction on a rolling window (sqlite file)', () => {
  let dirs: string[];
  beforeEach(() => {
    dirs = [mkdtempSync(join(tmpdir(), 'lens-compact-')), mkdtempSync(join(tmpdir(), 'lens-rows-'))];
  });
  afterEach(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Seven days of traffic a day at a time, retention each day, and compaction too when `hotMs` is given. */
  async function roll(dir: string, hotMs: number | null): Promise<number[]> {
    const store = await openStore({ dataDir: dir });
    try {
      const app = createTestApp(store);
      const sizes: number[] = [];
      for (let day = 0; day < 7; day++) {
        await ingest(app, traffic(DAY0 + day * DAY_MS, 24, 60, `roll-${day}`));
        const now = DAY0 + (day + 1) * DAY_MS;
        if (hotMs !== null) await compactColdEvents(store, hotMs, now);
        await applyRetention(store, { eventsMs: 3 * DAY_MS, countsMs: 4 * DAY_MS }, now);
        await store.run(sql`PRAGMA wal_checkpoint(TRUNCATE)`);
        sizes.push(statSync(join(dir, 'lens.sqlite')).size);
      }
      return sizes;
    } finally {
      await store.close();
    }
  }

  it('holds the file at a steady size, smaller than the rows alone hold', async () => {
    const packed = await roll(dirs[0] as string, 12 * HOUR_MS);
    const rows = await roll(dirs[1] as string, null);
    // Three days of events and four of counts are held from day 3 on: the file stops growing there.
    const steady = packed[3] as number;
    for (const size of packed.slice(4)) expect(size).toBeLessThanOrEqual(steady * 1.1);
    expect(packed[2]).toBeGreaterThan((packed[0] as number) * 1.5);
    // From the first day packed on, the file is lighter than the same store's with rows only: the pages the rows
    // left are taken again by the next day's rows, and the blocks take a fraction of them.
    for (const [day, size] of packed.entries())
      if (day > 0) expect(size, `day ${day}`).toBeLessThan(rows[day] as number);
    expect(packed[6] as number).toBeLessThan((rows[6] as number) * 0.85);
  });
});
