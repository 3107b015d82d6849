import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { buildMissingStorms } from '../../api/services/gate-maintenance.ts';
import { backfillRequestFacts } from '../../api/services/request-facts.ts';
import { applyRetention } from '../../api/services/retention.ts';
import { packLines } from '../../db/body-codec.ts';
import { FINE_COUNTER_TABLES, HOUR_COUNTER_TABLES } from '../../db/counters/levels.ts';
import { BLOCKS_PER_DAY, eventDay } from '../../db/event-days.ts';
import { partitionName, partitionNames } from '../../db/queries/day-partitions.ts';
import { getHotEvent } from '../../db/queries/events.ts';
import type { SqlRunner } from '../../db/runner.ts';
import { openStore } from '../../db/store.ts';
import { DAY_MS } from '../../shared/analysis/time-buckets.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { readCatalog } from '../support/catalog.ts';
import { clientEvent, rpcError } from '../support/events.ts';
import { asBeforeCountsByTime, asBeforeEventsByDay, catalogBefore } from '../support/migrations.ts';
import { STORE_KINDS, skipOnCitus, type TestStore } from '../support/stores.ts';
import { tableRows } from '../support/tables.ts';

/**
 * Events by day (issue 19, item 4; docs/adr/0009-retention.md): on PostgreSQL `events` and `event_bodies` are kept in
 * day partitions, made ahead or when a batch brings a day that has none, and retention drops a past day whole; on
 * both stores the dedupe key is (event_id, ts, server) and a line block holds one day's lines.
 */

const DAY0 = Date.parse('2026-10-01T00:00:00Z');
const MIDNIGHT = DAY0 + DAY_MS;
const SERVERS = ['docs', 'files', 'search'];

/** `perHour` requests an hour for `days` days from `start`, every fifth refused, over a few servers and clients. */
function traffic(start: number, days: number, perHour: number, tag: string) {
  return Array.from({ length: days * 24 * perHour }, (_, n) =>
    clientEvent({
      id: `${tag}-${n}`,
      ts: new Date(start + Math.floor(n / perHour) * 3_600_000 + (n % perHour) * 1_000 + 7_000).toISOString(),
      client: `agent-${n % 4}`,
      server: SERVERS[n % SERVERS.length],
      request: { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: `tool-${n % 9}`, arguments: {} } },
      ...(n % 5 === 0 && { response: rpcError(-32601, 'Method not found') }),
    }),
  );
}

async function json(app: TestApp, path: string) {
  const res = await get(app, path);
  expect(res.status, path).toBe(200);
  return res.json();
}

async function ingest(app: TestApp, events: readonly Record<string, unknown>[]) {
  const res = await postNdjson(app, events);
  expect(res.status).toBe(200);
  return res.json();
}

const range = (from: number, to: number) => `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;

/** The partitions of a partitioned table, by name. */
async function partitionsOf(db: SqlRunner, table: string): Promise<string[]> {
  const rows = await db.all<{ name: string }>(sql`SELECT c.relname AS name FROM pg_inherits AS i
    JOIN pg_class AS c ON c.oid = i.inhrelid WHERE i.inhparent = ${table}::regclass ORDER BY 1`);
  return rows.map((row) => row.name);
}

const namesOf = (days: number[]) => ({
  events: days.map((day) => partitionNames(day).events),
  bodies: days.map((day) => partitionNames(day).bodies),
});

/** Each counter table's partitions, by table. */
async function counterPartitions(db: SqlRunner): Promise<Record<string, string[]>> {
  const held: Record<string, string[]> = {};
  for (const table of [...FINE_COUNTER_TABLES, ...HOUR_COUNTER_TABLES]) held[table] = await partitionsOf(db, table);
  return held;
}

/** What counterPartitions answers when the counts finer than an hour hold `days` and the hour counts their months. */
function counterPartitionsOf(days: readonly number[]): Record<string, string[]> {
  const expected: Record<string, string[]> = {};
  for (const table of FINE_COUNTER_TABLES) expected[table] = days.map((day) => partitionName(table, 'day', day));
  for (const table of HOUR_COUNTER_TABLES) {
    expected[table] = [...new Set(days.map((day) => partitionName(table, 'month', day)))];
  }
  return expected;
}

/** Every counter table's rows, as a count and a digest of their text, by table. */
async function counterRows(db: SqlRunner): Promise<Record<string, { n: number; digest: string }>> {
  const rows: Record<string, { n: number; digest: string }> = {};
  for (const table of [...FINE_COUNTER_TABLES, ...HOUR_COUNTER_TABLES]) {
    const [row] = await db.all<{ n: number; digest: string }>(sql`SELECT count(*) AS n,
      md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) AS digest FROM ${sql.raw(table)} AS t`);
    rows[table] = { n: Number(row?.n), digest: String(row?.digest) };
  }
  return rows;
}

const totalRows = (rows: Record<string, { n: number }>) => Object.values(rows).reduce((n, row) => n + row.n, 0);

describe.each(STORE_KINDS)('events by day, on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    afterEach(async () => db.dispose());

    it('dedupes a batch sent again across midnight and keeps each line with its own day', async () => {
      db = await kind.open();
      const app = createTestApp(db.store);
      const batch = [
        clientEvent({ id: 'before', ts: new Date(MIDNIGHT - 1).toISOString() }),
        clientEvent({ id: 'after', ts: new Date(MIDNIGHT).toISOString() }),
        clientEvent({ id: 'before-too', ts: new Date(MIDNIGHT - 2).toISOString() }),
      ];
      expect(await ingest(app, batch)).toMatchObject({ accepted: 3, duplicates: 0 });
      expect(await ingest(app, batch)).toMatchObject({ accepted: 0, duplicates: 3 });
      expect(await tableRows(db.store, 'events')).toBe(3);
      for (const event of batch) {
        const stored = await json(app, `/api/v1/events/${event.id}`);
        expect(stored.ts).toBe(event.ts);
      }
      // One block per run of a day's lines: before midnight, after it, before it again.
      const blocks = await db.store.all<{ id: number; ts: number }>(
        sql`SELECT body_block AS id, ts FROM events ORDER BY seq`,
      );
      expect(new Set(blocks.map((row) => row.id)).size).toBe(3);
      if (kind.name === 'postgres') {
        for (const { id, ts } of blocks) expect(Math.floor(Number(id) / BLOCKS_PER_DAY)).toBe(eventDay(Number(ts)));
        expect(await partitionsOf(db.store, 'events')).toEqual(
          namesOf([eventDay(MIDNIGHT - 1), eventDay(MIDNIGHT)]).events,
        );
      }
    });

    it('stores an event older than every day it holds, and one years ahead', async () => {
      db = await kind.open();
      const app = createTestApp(db.store);
      await ingest(app, traffic(DAY0, 1, 2, 'now'));
      const old = clientEvent({ id: 'old', ts: '2019-03-04T05:06:07Z' });
      const ahead = clientEvent({ id: 'ahead', ts: '2031-01-01T00:00:00Z' });
      expect(await ingest(app, [old, ahead])).toMatchObject({ accepted: 2 });
      expect((await json(app, '/api/v1/events/old')).ts).toBe('2019-03-04T05:06:07.000Z');
      expect((await json(app, '/api/v1/events/ahead')).request).toMatchObject({ method: 'tools/call' });
      // Counted into days (and, on PostgreSQL, months) no count table had a partition of.
      const oldHour = Date.parse('2019-03-04T05:00:00Z');
      const { points } = await json(app, `/api/v1/timeseries?${range(oldHour, oldHour + 3_600_000)}&step=1m`);
      expect(points.reduce((n: number, point: { requests: number }) => n + point.requests, 0)).toBe(1);
      expect((await json(app, `/api/v1/summary?${range(oldHour, oldHour + 3_600_000)}`)).overall.total).toBe(1);
      if (kind.name === 'postgres') {
        const days = [eventDay(Date.parse('2019-03-04T05:06:07Z')), eventDay(DAY0), eventDay(Date.parse('2031-01-01'))];
        expect(await partitionsOf(db.store, 'events')).toEqual(namesOf(days).events);
        expect(await partitionsOf(db.store, 'event_bodies')).toEqual(namesOf(days).bodies);
        expect(await counterPartitions(db.store)).toEqual(counterPartitionsOf(days));
      }
    });

    it('upgrades a store of one table: the same events, lines and counts, then days of their own', async ({ skip }) => {
      skipOnCitus(
        skip,
        kind,
        'rebuilds the schema of the release before events_by_day, storms keyed by id alone, a unique key without the distribution column, which Citus refuses (a Citus store starts at the current schema)',
      );
      db = await kind.open();
      let app = createTestApp(db.store);
      // Batches that cross midnight: the blocks written before the upgrade held lines of two days.
      await ingest(app, traffic(DAY0 + 20 * 3_600_000, 1, 3, 'u'));
      // And a retry loop: the same refused call sent again and again.
      const loop = Array.from({ length: 6 }, (_, k) =>
        clientEvent({
          id: `loop-${k}`,
          ts: new Date(DAY0 + 21 * 3_600_000 + k * 2_000).toISOString(),
          client: 'agent-loop',
          server: 'docs',
          request: { jsonrpc: '2.0', id: k, method: 'tools/call', params: { name: 'gone', arguments: {} } },
          response: rpcError(-32601, 'Method not found'),
        }),
      );
      await ingest(app, loop);
      const days = [eventDay(DAY0), eventDay(MIDNIGHT)];
      const read = async () => ({
        events: (await json(app, `/api/v1/events?${range(DAY0, DAY0 + 3 * DAY_MS)}&limit=1000`)).events,
        hours: (await json(app, `/api/v1/timeseries?${range(DAY0, DAY0 + 3 * DAY_MS)}&step=1h`)).points,
        // Kept under (id, server) since storms_key_with_server, which the upgrade runs too.
        storms: (await json(app, `/api/v1/storms?${range(DAY0, DAY0 + 3 * DAY_MS)}&limit=100`)).storms,
      });
      const before = await read();
      expect(before.events).toHaveLength(78);
      expect(before.storms.length).toBeGreaterThan(0);

      // Read in today's shape: the release before's rows lack later columns.
      const [first, second] = [await getHotEvent(db.store, 'u-11'), await getHotEvent(db.store, 'u-12')];
      await asBeforeEventsByDay(db.store);
      expect(await readCatalog(db.store)).toEqual(await catalogBefore(kind.name, 'events_by_day'));
      if (kind.name === 'postgres') {
        // As the release before wrote them, a block held lines of both sides of midnight, under a small id.
        expect(eventDay(first?.ts as number)).toBe(eventDay(DAY0));
        expect(eventDay(second?.ts as number)).toBe(eventDay(MIDNIGHT));
        const [block] = packLines([first?.body as string, second?.body as string]).blocks;
        const [{ id } = { id: 0 }] = await db.store.all<{ id: number }>(sql`INSERT INTO event_bodies (id, data)
          VALUES (nextval(pg_get_serial_sequence('event_bodies', 'id')), ${block}) RETURNING id`);
        await db.store.run(sql`UPDATE events SET body_block = ${id},
          body_line = CASE event_id WHEN 'u-11' THEN 0 ELSE 1 END WHERE event_id IN ('u-11', 'u-12')`);
      }

      app = createTestApp(await db.reopen());
      // What the server does at start after the upgrade: what the stored requests say of themselves read from their lines, then
      // the storms of every partition found again (migration storms_by_sender).
      expect(await backfillRequestFacts(db.store)).toBeGreaterThan(0);
      await buildMissingStorms(db.store);
      expect(await read()).toEqual(before);
      if (kind.name === 'postgres') {
        expect(await partitionsOf(db.store, 'events')).toEqual(namesOf(days).events);
        const strays = await db.store.all(sql`SELECT 1 FROM events
          WHERE body_block / ${BLOCKS_PER_DAY}::bigint <> ts / ${DAY_MS}::bigint`);
        expect(strays).toEqual([]);
      }
      // New events go in as before, and re-sent old ones are still duplicates.
      expect(await ingest(app, traffic(DAY0 + 20 * 3_600_000, 1, 3, 'u'))).toMatchObject({ accepted: 0 });
      expect(await ingest(app, traffic(DAY0 + 2 * DAY_MS, 1, 1, 'n'))).toMatchObject({ accepted: 24 });
    });
  });
});

describe.skipIf(STORE_KINDS.find((k) => k.name === 'postgres')?.unavailable !== null)(
  'day partitions on PostgreSQL',
  () => {
    const postgres = STORE_KINDS.find((k) => k.name === 'postgres');
    let db: TestStore;
    afterEach(async () => db.dispose());

    it('drops a past day whole, with its line blocks, and keeps reading its hour counts', async () => {
      db = await (postgres as (typeof STORE_KINDS)[number]).open();
      const app = createTestApp(db.store);
      await ingest(app, traffic(DAY0, 3, 4, 'r'));
      const now = DAY0 + 3 * DAY_MS;
      const whole = range(DAY0, now);
      const hoursBefore = (await json(app, `/api/v1/timeseries?${whole}&step=1h`)).points;
      const days = [0, 1, 2].map((d) => eventDay(DAY0) + d);
      expect(await partitionsOf(db.store, 'events')).toEqual(namesOf(days).events);

      // Events kept 1.5 days: from day 1 00:00, the day rounded down. Counts kept 3 days.
      const done = await applyRetention(db.store, { eventsMs: 1.5 * DAY_MS, countsMs: 3 * DAY_MS }, now);
      expect(done.events).toBe(24 * 4);
      expect(await partitionsOf(db.store, 'events')).toEqual(namesOf(days.slice(1)).events);
      expect(await partitionsOf(db.store, 'event_bodies')).toEqual(namesOf(days.slice(1)).bodies);
      const gone = await db.store.all(sql`SELECT relname FROM pg_class
        WHERE relname IN (${partitionNames(days[0] as number).events}, ${partitionNames(days[0] as number).bodies})`);
      expect(gone).toEqual([]);
      expect(await tableRows(db.store, 'events')).toBe(2 * 24 * 4);
      expect((await json(app, `/api/v1/events?${range(DAY0, DAY0 + DAY_MS)}&limit=10`)).events).toEqual([]);
      expect((await json(app, `/api/v1/timeseries?${whole}&step=1h`)).points).toEqual(hoursBefore);
      // A late event of the dropped day is taken: its day is made again, and the next pass drops it.
      const late = clientEvent({ id: 'late', ts: new Date(DAY0 + 3_600_000).toISOString() });
      expect(await ingest(app, [late])).toMatchObject({ accepted: 1 });
      expect(await partitionsOf(db.store, 'events')).toEqual(namesOf(days).events);
      expect(await applyRetention(db.store, { eventsMs: 1.5 * DAY_MS, countsMs: 3 * DAY_MS }, now)).toMatchObject({
        events: 1,
      });
      expect(await partitionsOf(db.store, 'events')).toEqual(namesOf(days.slice(1)).events);
    });

    it("drops the counts' day and month partitions past the horizons, deleting rows only in the month cut", async () => {
      db = await (postgres as (typeof STORE_KINDS)[number]).open();
      const app = createTestApp(db.store);
      // Sep 29 to Oct 2: two days of September, two of October.
      const start = DAY0 - 2 * DAY_MS;
      const perHour = 4;
      await ingest(app, traffic(start, 4, perHour, 'm'));
      const now = start + 4 * DAY_MS;
      const days = [0, 1, 2, 3].map((d) => eventDay(start) + d);
      expect(await counterPartitions(db.store)).toEqual(counterPartitionsOf(days));
      const hoursBefore = (await json(app, `/api/v1/timeseries?${range(start, now)}&step=1h`)).points;
      const rowsBefore = await counterRows(db.store);

      // Events kept 1 day (from Oct 2), counts 1.5 days (from Oct 1 12:00): September's months go whole, October's
      // hours before noon of the 1st row by row.
      const done = await applyRetention(db.store, { eventsMs: DAY_MS, countsMs: 1.5 * DAY_MS }, now);
      const eventsFrom = now - DAY_MS;
      const countsFrom = DAY0 + DAY_MS / 2;
      expect(done.events).toBe(3 * 24 * perHour);
      expect(await counterPartitions(db.store)).toEqual({
        ...counterPartitionsOf([eventDay(eventsFrom)]),
        ...Object.fromEntries(
          HOUR_COUNTER_TABLES.map((table) => [table, [partitionName(table, 'month', days[2] as number)]]),
        ),
      });
      const gone = [
        ...FINE_COUNTER_TABLES.flatMap((table) => days.slice(0, 3).map((day) => partitionName(table, 'day', day))),
        ...HOUR_COUNTER_TABLES.map((table) => partitionName(table, 'month', days[0] as number)),
      ];
      const names = sql.join(
        gone.map((name) => sql`${name}`),
        sql`, `,
      );
      expect(await db.store.all(sql`SELECT relname FROM pg_class WHERE relname IN (${names})`)).toEqual([]);
      // What the pass says it removed is what went.
      expect(done.counts).toBe(totalRows(rowsBefore) - totalRows(await counterRows(db.store)));
      for (const table of HOUR_COUNTER_TABLES) {
        const [early] = await db.store.all<{ n: number }>(
          sql`SELECT count(*) AS n FROM ${sql.raw(table)} WHERE start < ${countsFrom}`,
        );
        expect(Number(early?.n), table).toBe(0);
      }

      // Hour counts from the counts horizon on: as before, and as many as were sent; none before it.
      const hoursAfter = (await json(app, `/api/v1/timeseries?${range(start, now)}&step=1h`)).points;
      expect(hoursAfter).toHaveLength(hoursBefore.length);
      for (const [i, point] of hoursAfter.entries()) {
        const at = new Date(point.start).toISOString();
        expect(point.requests, at).toBe(point.start < countsFrom ? 0 : hoursBefore[i].requests);
        if (point.start >= countsFrom) expect(point.requests, at).toBe(perHour);
      }
      // Minutes from the events horizon on equal the raw events kept.
      const minutes = (await json(app, `/api/v1/timeseries?${range(eventsFrom, now)}&step=1m`)).points;
      const counted = minutes.reduce((n: number, point: { requests: number }) => n + point.requests, 0);
      expect(counted).toBe(await tableRows(db.store, 'events'));
      expect(counted).toBe(24 * perHour);
      // A second pass has nothing left.
      expect(await applyRetention(db.store, { eventsMs: DAY_MS, countsMs: 1.5 * DAY_MS }, now)).toEqual({
        events: 0,
        counts: 0,
      });
    });

    it('upgrades plain counter tables to time partitions, keeping every row', async () => {
      db = await (postgres as (typeof STORE_KINDS)[number]).open();
      let app = createTestApp(db.store);
      // Sep 30 12:00 to Oct 2 12:00: three days, two months.
      const start = DAY0 - DAY_MS / 2;
      await ingest(app, traffic(start, 2, 3, 'c'));
      const days = [0, 1, 2].map((d) => eventDay(start) + d);
      const whole = range(start - DAY_MS, start + 3 * DAY_MS);
      const read = async () => ({
        hours: (await json(app, `/api/v1/timeseries?${whole}&step=1h`)).points,
        servers: (await json(app, `/api/v1/servers?${whole}`)).servers,
        docs: await json(app, `/api/v1/servers/docs?${whole}`),
      });
      const before = await read();
      const rows = await counterRows(db.store);
      expect(totalRows(rows)).toBeGreaterThan(0);

      await asBeforeCountsByTime(db.store);
      expect(await readCatalog(db.store)).toEqual(await catalogBefore('postgres', 'counts_by_time'));
      expect(Object.values(await counterPartitions(db.store)).flat()).toEqual([]);
      expect(await counterRows(db.store)).toEqual(rows);

      app = createTestApp(await db.reopen());
      expect(await counterPartitions(db.store)).toEqual(counterPartitionsOf(days));
      expect(await counterRows(db.store)).toEqual(rows);
      expect(await read()).toEqual(before);
      // A day after them is made and counted as before.
      expect(await ingest(app, traffic(start + 3 * DAY_MS, 1, 1, 'n'))).toMatchObject({ accepted: 24 });
      expect(await counterPartitions(db.store)).toEqual(
        counterPartitionsOf([...days, (days[2] as number) + 1, (days[2] as number) + 2]),
      );
    });

    it('takes batches of new days from two processes at once, each event once', async () => {
      db = await (postgres as (typeof STORE_KINDS)[number]).open();
      const other = await openStore(db.config);
      try {
        const apps = [createTestApp(db.store), createTestApp(other)];
        // Twelve days neither store has a partition of; both processes send every day, half the ids in common.
        const shared = traffic(DAY0, 12, 2, 'shared');
        const sends = apps.map((app, i) => {
          const own = traffic(DAY0, 12, 1, `own-${i}`);
          const batches = Array.from({ length: 12 }, (_, day) => [
            ...shared.filter((_, n) => Math.floor(n / 48) === (i === 0 ? day : 11 - day)),
            ...own.filter((_, n) => Math.floor(n / 24) === day),
          ]);
          return (async () => {
            for (const batch of batches) await ingest(app, batch);
          })();
        });
        await Promise.all(sends);
        expect(await tableRows(db.store, 'events')).toBe(shared.length + 2 * 12 * 24);
        const days = Array.from({ length: 12 }, (_, d) => eventDay(DAY0) + d);
        expect(await partitionsOf(db.store, 'events')).toEqual(namesOf(days).events);
        // And counted once: the fold ran in both processes.
        const { points } = await json(
          apps[0] as TestApp,
          `/api/v1/timeseries?${range(DAY0, DAY0 + 12 * DAY_MS)}&step=1d`,
        );
        const counted = points.reduce((n: number, point: { requests: number }) => n + point.requests, 0);
        expect(counted).toBe(shared.length + 2 * 12 * 24);
      } finally {
        await other.close();
      }
    });
  },
);
