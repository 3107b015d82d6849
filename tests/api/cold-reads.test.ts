import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactColdEvents } from '../../api/services/compaction.ts';
import { COUNT_BLOCKS, coldBlockReads, ID_SCAN_BLOCKS } from '../../db/queries/cold-reads.ts';
import { getEvent, listEvents, partnerRecords } from '../../db/queries/event-reads.ts';
import {
  hotListedRows,
  type ListedFields,
  type ListFilter,
  listedBy,
  UNLISTED_COLUMNS,
} from '../../db/queries/events.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { inflatedSections } from '../../shared/column-block.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { clientEvent, proxyEvent, rpcError } from '../support/events.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';
import { tableRows } from '../support/tables.ts';

/**
 * The single events an operator drills into read cold blocks too (issue 41 item 1, docs/adr/0021-cold-events-in-
 * blocks.md "Who reads single events in cold time"): after a compaction the events list, page by page, its count,
 * the event view, a record's partner, the export and the stored span answer exactly as before it.
 */

const DAY0 = Date.parse('2026-10-01T00:00:00Z');
const HOURS = 12;
/** Twelve hours of traffic, read 20 minutes after the last: a hot window of 6 hours packs the first six. */
const NOW = DAY0 + HOURS * HOUR_MS + 20 * 60_000;
const HOT_WINDOW = 6 * HOUR_MS;
const COLD_UNTIL = DAY0 + 6 * HOUR_MS;
const SERVERS = ['docs', 'files', 'search'];

/** How the n-th request ended: refused, failed inside, logged without its outcome, a hidden failure, or answered. */
function answerOf(n: number): Record<string, unknown> {
  if (n % 5 === 0) return { response: rpcError(-32601, 'Method not found') };
  if (n % 11 === 0)
    return { response: rpcError(-32603, 'Internal error'), http: { method: 'POST', path: '/mcp', status: 500 } };
  // Unknown, no failure (ADR 18).
  if (n % 13 === 0) return { record: 'outcome_unknown', response: undefined };
  if (n % 7 === 0)
    return {
      response: { jsonrpc: '2.0', id: n, result: { content: [{ type: 'text', text: 'Rate limit exceeded' }] } },
    };
  return {};
}

/** `perHour` requests an hour: some refused, some failing inside, some hidden failures, each third also proxied. */
function traffic(start: number, hours: number, perHour: number, tag: string) {
  const events: Record<string, unknown>[] = [];
  for (let n = 0; n < hours * perHour; n++) {
    // Every fourth request shares its time with the one before: the cursor's ties are broken by arrival.
    const step = n % 4 === 3 ? n - 1 : n;
    const ts = new Date(start + Math.floor((step * HOUR_MS) / perHour) + 7_000).toISOString();
    const server = SERVERS[n % SERVERS.length];
    const answer = answerOf(n);
    events.push(
      clientEvent({
        id: `${tag}-${n}`,
        ts,
        client: `agent-${n % 4}`,
        server,
        request: { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: `tool-${n % 5}`, arguments: {} } },
        ...answer,
      }),
    );
    if (n % 3 === 0) events.push(proxyEvent({ id: `${tag}-p${n}`, ts, server }));
  }
  return events;
}

async function json(app: TestApp, path: string) {
  const res = await get(app, path);
  expect(res.status, path).toBe(200);
  return res.json();
}

const RANGE = `from=${new Date(DAY0).toISOString()}&to=${new Date(NOW).toISOString()}`;

/** Every page of a list, its first page's total included, following nextCursor. */
async function allPages(app: TestApp, query: string) {
  const pages: { events: { id: string; bucket: string }[]; nextCursor: string | null; total: unknown }[] = [];
  let cursor: string | null = null;
  do {
    const page = await json(app, `/api/v1/events?${query}&limit=7${cursor === null ? '' : `&cursor=${cursor}`}`);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return pages;
}

const byId = (a: { eventId: string }, b: { eventId: string }) => (a.eventId < b.eventId ? -1 : 1);

describe.each(STORE_KINDS)('reads of cold events on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    async function ingest(target: TestApp, events: readonly Record<string, unknown>[]) {
      const response = await postNdjson(target, events);
      expect(response.status).toBe(200);
    }

    /** Compacts, and checks that the range's first half did leave the rows. */
    async function compact() {
      const done = await compactColdEvents(db.store, HOT_WINDOW, NOW);
      expect(done.events).toBeGreaterThan(0);
      const [row] = await db.store.all<{ n: number | string }>(
        sql`SELECT count(*) AS n FROM events WHERE ts < ${COLD_UNTIL}`,
      );
      expect(Number(row?.n)).toBe(0);
    }

    it('lists, pages and counts the same events before and after a compaction, whatever the filter', async () => {
      await ingest(app, traffic(DAY0, HOURS, 10, 'a'));
      const everything = (await allPages(app, `${RANGE}&records=all`)).flatMap((page) => page.events);
      const buckets = [...new Set(everything.map((event) => event.bucket))];
      expect(buckets.length).toBeGreaterThan(2);
      const queries = [
        RANGE,
        `${RANGE}&records=all`,
        `${RANGE}&server=docs`,
        `${RANGE}&server=docs&records=all`,
        `${RANGE}&client=agent-1`,
        `${RANGE}&client=agent-2&server=files`,
        `${RANGE}&failed=true`,
        `${RANGE}&server=search&failed=true`,
        `${RANGE}&hidden=failure`,
        `${RANGE}&profile=100000`,
        ...buckets.map((bucket) => `${RANGE}&bucket=${bucket}&records=all`),
        // A range that starts and ends inside hours, one cold and one hot.
        `from=${new Date(DAY0 + 2.5 * HOUR_MS).toISOString()}&to=${new Date(DAY0 + 8.5 * HOUR_MS).toISOString()}`,
      ];
      const before = await Promise.all(queries.map((query) => allPages(app, query)));
      await compact();
      for (const [i, query] of queries.entries()) expect(await allPages(app, query), query).toEqual(before[i]);
      // The answers were not empty: each filter lists cold events.
      expect(before.every((pages) => pages[0]?.events.length)).toBe(true);
    });

    it('shows a cold event and its partner by id, with or without where it is, as before', async () => {
      await ingest(app, traffic(DAY0, HOURS, 10, 'b'));
      // A proxy that names the server otherwise, joined by the request id: its record is in another server's block.
      const http = { method: 'POST', path: '/mcp', status: 200, requestId: 'rid-1' };
      const at = (ms: number) => new Date(DAY0 + 2 * HOUR_MS + ms).toISOString();
      await ingest(app, [
        clientEvent({ id: 'b-joined', ts: at(30_000), server: 'docs', client: 'agent-9', http }),
        proxyEvent({ id: 'b-edge', ts: at(0), server: 'docs-edge', http }),
      ]);
      const ids = ['b-0', 'b-3', 'b-p3', 'b-17', 'b-34', 'b-p33', 'b-59', 'b-joined', 'b-edge'];
      const before = await Promise.all(ids.map((id) => json(app, `/api/v1/events/${id}`)));
      const lists = [`${RANGE}&server=docs`, `${RANGE}&client=agent-9`];
      const listed = await Promise.all(lists.map((query) => allPages(app, query)));
      expect(listed[1]?.[0]?.events[0]).toMatchObject({ id: 'b-joined', partnerRecord: { id: 'b-edge' } });
      // The partners of a whole list at once, none of their blocks read before (the list's pages pass theirs).
      const docs = { records: 'counted' as const, server: 'docs', from: DAY0, to: NOW };
      const partners = async () => {
        const found = await partnerRecords(db.store, await listEvents(db.store, docs, null, 1000));
        return found.map(({ eventId, partner, body }) => ({ eventId, partner, body })).sort(byId);
      };
      const partnersBefore = await partners();
      expect(partnersBefore.length).toBeGreaterThan(10);
      await compact();
      for (const [i, query] of lists.entries()) expect(await allPages(app, query), query).toEqual(listed[i]);
      expect(await partners()).toEqual(partnersBefore);
      for (const [i, id] of ids.entries()) {
        const event = before[i] as { ts: string; server: string; partner: string | null };
        expect(Date.parse(event.ts)).toBeLessThan(COLD_UNTIL);
        expect(await json(app, `/api/v1/events/${id}`), id).toEqual(event);
        expect(await json(app, `/api/v1/events/${id}?ts=${event.ts}`), id).toEqual(event);
        expect(await json(app, `/api/v1/events/${id}?ts=${Date.parse(event.ts)}&server=${event.server}`)).toEqual(
          event,
        );
        // A hint that is wrong costs a wider search, not the event.
        expect(await json(app, `/api/v1/events/${id}?ts=${NOW}&server=elsewhere`), id).toEqual(event);
      }
      const missing = await get(app, '/api/v1/events/never-sent');
      expect(missing.status).toBe(404);
      expect((await missing.json()).error.message).toBe('no stored event has that id');
    });

    it('says what to add when an id alone is past the blocks it searches, and finds it by its time', async () => {
      // One request a server-hour: a block each, more of them than an id alone is searched in.
      const hours = Math.ceil((ID_SCAN_BLOCKS + 3) / SERVERS.length);
      const sparse = Array.from({ length: hours * SERVERS.length }, (_, n) =>
        clientEvent({
          id: `c-${n}`,
          ts: new Date(DAY0 - hours * HOUR_MS + Math.floor(n / SERVERS.length) * HOUR_MS + n).toISOString(),
          server: SERVERS[n % SERVERS.length],
        }),
      );
      await ingest(app, sparse);
      const oldest = await json(app, '/api/v1/events/c-0');
      const all = `from=${new Date(DAY0 - hours * HOUR_MS).toISOString()}&to=${new Date(NOW).toISOString()}`;
      const listed = await allPages(app, all);
      await compactColdEvents(db.store, HOT_WINDOW, NOW);
      expect(await tableRows(db.store, 'cold_blocks')).toBeGreaterThan(Math.max(ID_SCAN_BLOCKS, COUNT_BLOCKS));
      const alone = await get(app, '/api/v1/events/c-0');
      expect(alone.status).toBe(404);
      const { error } = await alone.json();
      expect(error.code).toBe('not_found');
      expect(error.fix).toMatch(/ts=/);
      expect(await json(app, `/api/v1/events/c-0?ts=${oldest.ts}`)).toEqual(oldest);
      expect(await json(app, `/api/v1/events/c-0?ts=${oldest.ts}&server=${oldest.server}`)).toEqual(oldest);
      // Walked over more blocks than a statement names: the same pages; but a count that would read more than
      // COUNT_BLOCKS blocks is not made, as a count of a bucket is not made.
      const after = await allPages(app, all);
      expect(after.flatMap((page) => page.events)).toEqual(listed.flatMap((page) => page.events));
      expect(listed[0]?.total).toEqual({ count: sparse.length, capped: false });
      expect(after[0]?.total).toBeNull();
    });

    it('exports the same lines and reports the same span after a compaction', async () => {
      await ingest(app, traffic(DAY0, HOURS, 10, 'd'));
      const exports = [
        `${RANGE}&format=ndjson`,
        `${RANGE}&format=csv&records=all`,
        `${RANGE}&format=ndjson&server=files`,
      ];
      const read = async () => ({
        exports: await Promise.all(exports.map(async (query) => (await get(app, `/api/v1/events?${query}`)).text())),
        span: await json(app, '/api/v1/span'),
      });
      const before = await read();
      await compact();
      expect(await read()).toEqual(before);
      expect(before.exports.every((text) => text.split('\n').length > 30)).toBe(true);
    });

    it('merges a late event stored as a row among the cold events of its hour', async () => {
      const reference = await kind.open();
      try {
        const plain = createTestApp(reference.store);
        const events = traffic(DAY0, HOURS, 10, 'e');
        await ingest(app, events);
        await ingest(plain, events);
        await compact();
        // Sent after its hour was packed: a row among blocks, in the list and the count in its place. Of a client
        // of its own, so that no verdict of a packed event would change had it come in time (the gate's replay).
        const late = traffic(DAY0 + HOUR_MS + 1_000, 1, 3, 'late').map((event) =>
          event.source === 'client' ? { ...event, client: 'late-agent' } : event,
        );
        await ingest(app, late);
        await ingest(plain, late);
        expect(await tableRows(db.store, 'events')).toBeGreaterThan(0);
        for (const query of [RANGE, `${RANGE}&records=all`, `${RANGE}&server=docs`]) {
          expect(await allPages(app, query), query).toEqual(await allPages(plain, query));
        }
      } finally {
        await reference.dispose();
      }
    });

    it('reads for a page only the blocks that can hold its events, and the same page as every block would', async () => {
      // An hour of three servers, each sending in its own third of the hour: the newest events are all the last one's.
      const thirds = SERVERS.flatMap((server, third) =>
        Array.from({ length: 12 }, (_, n) =>
          clientEvent({
            id: `g-${server}-${n}`,
            ts: new Date(DAY0 + HOUR_MS + third * 20 * 60_000 + n * 60_000).toISOString(),
            client: 'agent-1',
            server,
          }),
        ),
      );
      await ingest(app, thirds);
      const hour = { records: 'counted' as const, from: DAY0 + HOUR_MS, to: DAY0 + 2 * HOUR_MS };
      const pages = async () =>
        Promise.all(
          [5, 12, 20, 36].map(async (limit) => (await listEvents(db.store, hour, null, limit)).map((e) => e.eventId)),
        );
      const asRows = await pages();
      await compact();
      const reads = coldBlockReads.blocks;
      const newest = (await listEvents(db.store, hour, null, 5)).map((e) => e.eventId);
      // The newest five are the last server's: its block alone is read, the two older ones are not even tested.
      expect(coldBlockReads.blocks - reads).toBe(1);
      expect(newest).toEqual(asRows[0]);
      expect(await pages()).toEqual(asRows);
      expect(asRows.map((page) => page.length)).toEqual([5, 12, 20, 36]);
    });

    it('inflates for a page and an event only the columns they show, and the lines', async () => {
      await ingest(app, traffic(DAY0, HOURS, 10, 'u'));
      const hour = { records: 'counted' as const, from: DAY0 + HOUR_MS, to: DAY0 + 2 * HOUR_MS };
      const [first] = await listEvents(db.store, hour, null, 1);
      await compact();
      inflatedSections.clear();
      const page = await listEvents(db.store, hour, null, 5);
      expect(page.map((event) => event.eventId)[0]).toBe(first?.eventId);
      expect(page[0]?.body).toContain(first?.eventId);
      const viewed = await getEvent(db.store, first?.eventId ?? '', { ts: first?.ts, server: first?.server });
      expect(viewed.event?.body).toBe(page[0]?.body);
      expect(inflatedSections.get('line')).toBeGreaterThan(0);
      expect(UNLISTED_COLUMNS.filter((column) => inflatedSections.has(column))).toEqual([]);
    });

    it("reads an identity's sends from the blocks as from the rows, without their lines", async () => {
      await ingest(app, traffic(DAY0, HOURS, 10, 's'));
      const coldRange = `from=${new Date(DAY0).toISOString()}&to=${new Date(COLD_UNTIL).toISOString()}`;
      const [top] = (await json(app, `/api/v1/identities?${coldRange}&limit=1`)).identities;
      const path = `/api/v1/identities/${encodeURIComponent(top.identity)}?${coldRange}`;
      const before = await json(app, path);
      expect(before.sends).toBeGreaterThan(1);
      await compact();
      inflatedSections.clear();
      expect(await json(app, path)).toEqual(before);
      expect(inflatedSections.get('identity')).toBeGreaterThan(0);
      expect(inflatedSections.has('line')).toBe(false);
    });

    it('tests a cold event with the same filter the rows are selected by', async () => {
      await ingest(app, traffic(DAY0, 4, 10, 'f'));
      const rows = await db.store.all<ListedFields>(sql`SELECT seq, ts, server, client, bucket, kind,
        act_profile AS "actProfile", counted FROM events`);
      const profiles = [...new Set(rows.map((row) => row.actProfile).filter((profile) => profile !== null))];
      expect(profiles.length).toBeGreaterThan(1);
      const filters: ListFilter[] = [
        { records: 'all' },
        { records: 'counted' },
        { records: 'all', server: 'docs', from: DAY0 + HOUR_MS, to: DAY0 + 3 * HOUR_MS },
        { records: 'all', client: 'agent-1' },
        { records: 'counted', client: 'agent-2', server: 'files' },
        { records: 'all', failed: true },
        { records: 'all', hidden: 'failure' },
        { records: 'all', hidden: 'throttle' },
        { records: 'all', kind: rows.find((row) => row.bucket !== 'ok')?.kind },
        ...[...new Set(rows.map((row) => row.bucket))].map((bucket): ListFilter => ({ records: 'all', bucket })),
        ...profiles.map((profile): ListFilter => ({ records: 'all', controlProfile: (profile as number) % 64 })),
      ];
      for (const filter of filters) {
        const selected = (await hotListedRows(db.store, filter, null, 10_000)).map((row) => Number(row.seq));
        const tested = rows.filter(listedBy(filter)).map((row) => Number(row.seq));
        expect(
          tested.sort((a, b) => b - a),
          JSON.stringify(filter),
        ).toEqual(selected.sort((a, b) => b - a));
        expect(selected.length, JSON.stringify(filter)).toBeGreaterThan(0);
      }
    });
  });
});
