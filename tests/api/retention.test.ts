import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readMetric, storeReads } from '../../api/services/alerts/readings.ts';
import { rankIdentities } from '../../api/services/analysis/identity-ranking.ts';
import { applyRetention, keptData } from '../../api/services/retention.ts';
import { releaseFreePages } from '../../db/queries/retention.ts';
import type { Store } from '../../db/runner.ts';
import { openStore } from '../../db/store.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { requestIdentity } from '../../shared/identity.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { clientEvent, rpcError } from '../support/events.ts';
import { holdSettings, untilWaiting } from '../support/row-lock.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';
import { tableRows } from '../support/tables.ts';

/**
 * Retention (issue 19, item 4): raw events are kept for one horizon and hour counts for a longer one. Past the
 * first, the events are gone and a range's older part still reads its hour counts; past the second, those go too.
 */

const DAY_MS = 24 * HOUR_MS;
const DAY0 = Date.parse('2026-10-01T00:00:00Z');
const SERVERS = ['docs', 'files', 'search'];

/** `perHour` requests an hour for `days` days from `start`: every fifth refused, a few servers and clients. */
function traffic(start: number, days: number, perHour: number, tag: string) {
  const events: Record<string, unknown>[] = [];
  for (let hour = 0; hour < days * 24; hour++) {
    for (let k = 0; k < perHour; k++) {
      const n = hour * perHour + k;
      events.push(
        clientEvent({
          id: `${tag}-${n}`,
          ts: new Date(start + hour * HOUR_MS + k * (HOUR_MS / perHour) + 7_000).toISOString(),
          client: `agent-${n % 4}`,
          server: SERVERS[n % SERVERS.length],
          request: { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: `tool-${n % 9}`, arguments: {} } },
          ...(n % 5 === 0 && { response: rpcError(-32601, 'Method not found') }),
        }),
      );
    }
  }
  return events;
}

async function ingest(app: TestApp, events: readonly Record<string, unknown>[]) {
  for (let i = 0; i < events.length; i += 2000) {
    expect((await postNdjson(app, events.slice(i, i + 2000))).status).toBe(200);
  }
}

async function json(app: TestApp, path: string) {
  const res = await get(app, path);
  expect(res.status, path).toBe(200);
  return res.json();
}

const range = (from: number, to: number) => `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;

describe.each(STORE_KINDS)('retention on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    it('deletes events past the horizon and keeps reading their hour counts, until the counts horizon', async () => {
      await ingest(app, traffic(DAY0, 4, 6, 'r'));
      const now = DAY0 + 4 * DAY_MS;
      const whole = range(DAY0, now);
      const hoursBefore = (await json(app, `/api/v1/timeseries?${whole}&step=1h`)).points;
      const serversBefore = (await json(app, `/api/v1/servers?${range(DAY0 + DAY_MS / 2, now)}`)).servers;
      const blocksBefore = await tableRows(db.store, 'event_bodies');

      // Events kept 2.5 days, from the start of that day (day 1 00:00), counts 3.5 days (from day 0 12:00).
      const done = await applyRetention(db.store, { eventsMs: 2.5 * DAY_MS, countsMs: 3.5 * DAY_MS }, now);
      const eventsFrom = DAY0 + DAY_MS;
      const countsFrom = DAY0 + 0.5 * DAY_MS;
      expect(done.events).toBe(24 * 6);
      expect(done.counts).toBeGreaterThan(0);

      // The raw events before the horizon are gone, with every line block only they read; the rest are whole.
      const old = await json(app, `/api/v1/events?${range(DAY0, eventsFrom)}&limit=100`);
      expect(old.events).toEqual([]);
      const kept = await json(app, `/api/v1/events?${range(eventsFrom, now)}&limit=1000`);
      expect(kept.events).toHaveLength(3 * 24 * 6);
      expect(await tableRows(db.store, 'event_bodies')).toBeLessThan(blocksBefore);
      // Compared here, not joined: on Citus (ADR 14) event_bodies is distributed by id, events by server, and
      // Citus refuses a join of the two on anything but their distribution columns.
      const read = await db.store.all<{ id: number | string }>(sql`SELECT DISTINCT body_block AS id FROM events`);
      const blocks = await db.store.all<{ id: number | string }>(sql`SELECT id FROM event_bodies`);
      const readIds = new Set(read.map((row) => Number(row.id)));
      expect(blocks.map((row) => Number(row.id)).filter((id) => !readIds.has(id))).toEqual([]);
      // The oldest kept event shares line blocks with deleted ones' neighbours: its line still reads.
      const oldest = kept.events.at(-1);
      const one = await json(app, `/api/v1/events/${encodeURIComponent(oldest.id)}`);
      expect(one.request).toMatchObject({ method: 'tools/call' });

      // Hour counts: exactly what they were from the counts horizon on, nothing before it.
      const hoursAfter = (await json(app, `/api/v1/timeseries?${whole}&step=1h`)).points;
      expect(hoursAfter).toHaveLength(hoursBefore.length);
      for (const [i, point] of hoursAfter.entries()) {
        const expected = point.start < countsFrom ? 0 : hoursBefore[i].requests;
        expect(point.requests, new Date(point.start).toISOString()).toBe(expected);
      }
      // A range that starts before the events horizon reads its older hours from the counts: the same servers'
      // totals and avoidable requests as before retention.
      expect((await json(app, `/api/v1/servers?${range(DAY0 + DAY_MS / 2, now)}`)).servers).toEqual(serversBefore);
      // Before the horizon a range is read in whole hours: one that starts half way into an hour counts all of it.
      const halfHour = (await json(app, `/api/v1/servers?${range(DAY0 + DAY_MS / 2 + HOUR_MS / 2, now)}`)).servers;
      expect(halfHour).toEqual(serversBefore);
      // A minute series has no counts before the horizon: zeros there, exact after it.
      const minutes = (
        await json(app, `/api/v1/timeseries?${range(eventsFrom - HOUR_MS, eventsFrom + HOUR_MS)}&step=1m`)
      ).points;
      const sum = (from: number, to: number) =>
        minutes
          .filter((p: { start: number }) => p.start >= from && p.start < to)
          .reduce((n: number, p: { requests: number }) => n + p.requests, 0);
      expect(sum(eventsFrom - HOUR_MS, eventsFrom)).toBe(0);
      expect(sum(eventsFrom, eventsFrom + HOUR_MS)).toBe(6);

      // A second pass at the same time has nothing left to delete.
      expect(await applyRetention(db.store, { eventsMs: 2.5 * DAY_MS, countsMs: 3.5 * DAY_MS }, now)).toEqual({
        events: 0,
        counts: 0,
      });
    });

    it('holds the Overview totals, the Servers table and the alert readings equal across the events horizon', async () => {
      await ingest(app, traffic(DAY0, 4, 6, 'h'));
      const now = DAY0 + 4 * DAY_MS;
      await applyRetention(db.store, { eventsMs: 2.5 * DAY_MS, countsMs: 3.5 * DAY_MS }, now);
      // Half way into an hour before the events horizon (day 1 00:00): that hour is read whole from its count, by
      // every reader alike; a reader that forgets the horizon finds its minutes and events deleted and counts less.
      const from = DAY0 + DAY_MS / 2 + HOUR_MS / 2;
      const servers: { server: string; requests: number; buckets: { refusal: number } }[] = (
        await json(app, `/api/v1/servers?${range(from, now)}`)
      ).servers;
      const summary = await json(app, `/api/v1/summary?${range(from, now)}`);
      const tableTotal = servers.reduce((n, row) => n + row.requests, 0);
      expect(tableTotal).toBe((4 * 24 - 12) * 6);
      expect(summary.overall.total).toBe(tableTotal);
      for (const row of servers) expect(summary.servers[row.server].total, row.server).toBe(row.requests);

      const refusals = await readMetric(
        db.store,
        storeReads(db.store),
        { metric: 'refusal_count', groupBy: 'server', scope: {}, windowSeconds: (now - from) / 1000 },
        now,
      );
      for (const row of servers) {
        expect(refusals.find((value) => value.group === row.server)?.value, row.server).toBe(row.buckets.refusal);
      }
    });

    it('ranks identities over a range that starts before the events horizon by the hour counts kept there', async () => {
      // One identity sent 40 times in day 0's first hours, another 10 times on day 1: after the events of day 0
      // go, only the hour counts know the first was sent most.
      const sent = (id: string, name: string, start: number, n: number) =>
        Array.from({ length: n }, (_, k) =>
          clientEvent({
            id: `${id}-${k}`,
            ts: new Date(start + k * 60_000).toISOString(),
            server: 'docs',
            request: { jsonrpc: '2.0', id: k, method: 'tools/call', params: { name, arguments: {} } },
          }),
        );
      const old = sent('old', 'tool-old', DAY0 + 2 * HOUR_MS, 40);
      await ingest(app, [...old, ...sent('new', 'tool-new', DAY0 + DAY_MS + 2 * HOUR_MS, 10)]);
      const now = DAY0 + 2 * DAY_MS;
      await applyRetention(db.store, { eventsMs: 1.5 * DAY_MS, countsMs: 3 * DAY_MS }, now);
      const window = { from: DAY0, to: now, eventsFrom: DAY0 + DAY_MS / 2 };

      const { identities } = await rankIdentities(db.store, window, 2);
      expect(identities).toEqual([
        requestIdentity('docs', old[0]?.request as { method: string }),
        requestIdentity('docs', { method: 'tools/call', params: { name: 'tool-new', arguments: {} } }),
      ]);
    });
  });
});

describe.each(STORE_KINDS.filter((kind) => kind.name === 'postgres'))(
  'retention by two servers on one $name database',
  (kind) => {
    describe.skipIf(kind.unavailable !== null)('', () => {
      let db: TestStore;
      beforeEach(async () => {
        db = await kind.open();
      });
      afterEach(async () => db.dispose());

      it("keeps the later clock's horizons, whichever pass records last", async () => {
        // Reads take a range's older part from the hour counts, trusting no event to be left before the horizon: one
        // moved back by the earlier clock would read the days the later one deleted from no events.
        const horizons = { eventsMs: 2 * DAY_MS, countsMs: 3 * DAY_MS };
        const first = DAY0 + 4 * DAY_MS;
        await applyRetention(db.store, horizons, first);
        const other = await openStore(db.config);
        const held = await holdSettings(db.config, ['retention_events_from', 'retention_counts_from']);
        try {
          // Both read the horizons the first pass left, then queue behind the held rows: the later clock first.
          const later = applyRetention(other, horizons, first + 2 * DAY_MS);
          await untilWaiting(db.store, 1);
          const earlier = applyRetention(db.store, horizons, first + DAY_MS);
          await untilWaiting(db.store, 2);
          await held.release();
          await Promise.all([later, earlier]);
          const kept = await keptData(db.store);
          expect([kept.eventsFrom, kept.countsFrom]).toEqual([DAY0 + 4 * DAY_MS, DAY0 + 3 * DAY_MS]);
        } finally {
          await held.release();
          await other.close();
        }
      }, 60_000);
    });
  },
);

describe('retention on a rolling window (sqlite file)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lens-retention-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the file at a steady size: the pages of deleted days are used again', async () => {
    const store = await openStore({ dataDir: dir });
    try {
      const app = createTestApp(store);
      const sizes: number[] = [];
      for (let day = 0; day < 10; day++) {
        await ingest(app, traffic(DAY0 + day * DAY_MS, 1, 120, `roll-${day}`));
        await applyRetention(store, { eventsMs: 2 * DAY_MS, countsMs: 3 * DAY_MS }, DAY0 + (day + 1) * DAY_MS);
        await store.run(sql`PRAGMA wal_checkpoint(TRUNCATE)`);
        sizes.push(statSync(join(dir, 'lens.sqlite')).size);
      }
      // Two days of events and three of counts are held from day 3 on: the file stops growing there.
      const steady = sizes[3] as number;
      for (const size of sizes.slice(4)) expect(size).toBeLessThanOrEqual(steady * 1.1);
      expect(sizes[2]).toBeGreaterThan((sizes[0] as number) * 1.5);
    } finally {
      await store.close();
    }
  });
});

describe('retention gives freed pages back (sqlite file)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lens-release-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const fileBytes = async (store: Store) => {
    await store.run(sql`PRAGMA wal_checkpoint(TRUNCATE)`);
    return statSync(join(dir, 'lens.sqlite')).size;
  };

  it('shrinks the file after deleting most of it, leaving no free pages behind', async () => {
    const store = await openStore({ dataDir: dir });
    try {
      await ingest(createTestApp(store), traffic(DAY0, 3, 120, 'shrink'));
      const before = await fileBytes(store);
      await applyRetention(store, { eventsMs: 0.5 * DAY_MS, countsMs: 0.5 * DAY_MS }, DAY0 + 3 * DAY_MS);
      const after = await fileBytes(store);
      expect(after).toBeLessThan(before * 0.5);
      const [free] = await store.all<{ freelist_count: number }>(sql`PRAGMA freelist_count`);
      expect(free?.freelist_count).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('leaves a file made without incremental auto-vacuum as it is: its free pages are reused instead', async () => {
    const file = new Database(join(dir, 'lens.sqlite'));
    file.exec('CREATE TABLE made_before (x)');
    file.close();
    const store = await openStore({ dataDir: dir });
    try {
      await ingest(createTestApp(store), traffic(DAY0, 2, 120, 'old'));
      await applyRetention(store, { eventsMs: 0.5 * DAY_MS, countsMs: 0.5 * DAY_MS }, DAY0 + 2 * DAY_MS);
      const [free] = await store.all<{ freelist_count: number }>(sql`PRAGMA freelist_count`);
      expect(free?.freelist_count).toBeGreaterThan(0);
      expect(await releaseFreePages(store)).toBe(0);
    } finally {
      await store.close();
    }
  });
});
