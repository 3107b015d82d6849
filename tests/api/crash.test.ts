import { isDeepStrictEqual } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analysisHealth, type ServerProcess, spawnServer, untilAnalysed } from '../../bench/server-process.ts';
import { unpackColdEvents } from '../../db/queries/cold-events.ts';
import { listTable } from '../../db/queries/lists.ts';
import type { SqlRunner } from '../../db/runner.ts';
import { createTestApp, postNdjson } from '../support/app.ts';
import { BASE_TS } from '../support/events.ts';
import { readEverything } from '../support/readings.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';
import { mixedTraffic } from '../support/traffic.ts';

/**
 * kill -9 (issue 19): a `lens serve` process killed while it ingests and while it folds loses nothing it
 * acknowledged and counts nothing twice. After each kill a new process opens the same store, the shipper sends again
 * what was not acknowledged (and, as shippers do after a crash, some of what was), and in the end every number the
 * dashboard reads is what one clean ingest of the same events gives.
 *
 * And kill -9 during compaction (issue 41 item 1, docs/adr/0021-cold-events-in-blocks.md): a `lens serve --hot-window
 * 2h` process killed while it packs events into cold blocks, again and again, each new process on the same store going
 * on from where the last was killed. In the end every event is in exactly one place, a row or a block, whole, and
 * every number the dashboard reads is what a store that ingested the same events and never compacted answers.
 */

const RANGE = `from=${new Date(BASE_TS - 3_600_000).toISOString()}&to=${new Date(BASE_TS + 86_400_000).toISOString()}`;
const BATCH = 300;
const KILLS = 3;

function ndjson(events: readonly object[]): string {
  return events.map((event) => JSON.stringify(event)).join('\n');
}

async function send(server: ServerProcess, events: readonly object[]): Promise<boolean> {
  const response = await fetch(`${server.url}/api/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: ndjson(events),
  });
  return response.status === 200;
}

/** The events lie on 2026-11-02, far before the real clock: a hot window of two hours packs every one of them. */
const SERVE_ARGS = ['--hot-window', '2h'];
/** Kills during compaction: each process is killed once it has swapped in a block, and 9 blocks are to pack. */
const COMPACTION_KILLS = 4;
/** How long a killed process's successor may take to start and finish its compaction. */
const PASS_TIMEOUT_MS = 60_000;

interface Placed {
  rows: number;
  blocks: number;
}

/** How many events are still rows and how many blocks there are, read beside the server process. */
async function placed(store: SqlRunner): Promise<Placed> {
  const [row] = await store.all<{ rows: number | string; blocks: number | string }>(
    sql`SELECT (SELECT count(*) FROM events) AS rows, (SELECT count(*) FROM cold_blocks) AS blocks`,
  );
  return { rows: Number(row?.rows), blocks: Number(row?.blocks) };
}

/**
 * Waits until the server's compaction has swapped in a block since `from` (it is mid-pass: more may follow), or
 * until no row is left (the pass is over); answers what it saw.
 */
async function untilProgress(store: SqlRunner, from: Placed): Promise<Placed> {
  const deadline = Date.now() + PASS_TIMEOUT_MS;
  for (;;) {
    const now = await placed(store);
    if (now.rows === 0 || now.blocks > from.blocks) return now;
    if (Date.now() > deadline) throw new Error(`no compaction within ${PASS_TIMEOUT_MS} ms: ${JSON.stringify(now)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** What a store says of each event, by id: its time, what the fold and the gate decided of it, and its line. */
type EventFacts = Map<string, { facts: unknown[]; body: string | null }>;

/** The events' facts from their rows (lines not read: a row's line is ADR 5's, not compaction's). */
async function rowFacts(store: SqlRunner): Promise<EventFacts> {
  const rows = await store.all<Record<string, unknown>>(sql`SELECT event_id AS "eventId", ts, counted, partner,
    avoidable, bucket, gate_reason AS "gateReason", blocked_by AS "blockedBy" FROM events`);
  const facts: EventFacts = new Map();
  for (const row of rows) {
    if (facts.has(String(row.eventId))) throw new Error(`event ${row.eventId} is two rows`);
    facts.set(String(row.eventId), { facts: factsOf({ ...row, ts: Number(row.ts) }), body: null });
  }
  return facts;
}

function factsOf(event: Record<string, unknown>): unknown[] {
  return [event.ts, event.counted, event.partner, event.avoidable, event.bucket, event.gateReason, event.blockedBy];
}

/**
 * What the dashboard reads of a store over RANGE (tests/support/readings.ts) but the events list, which reads rows
 * alone yet: the events themselves are checked in the store.
 */
async function countsRead(db: TestStore): Promise<Record<string, unknown>> {
  const { events: _, ...readings } = await readEverything(createTestApp(db.store), RANGE);
  return readings;
}

/**
 * The readings (by path) whose answers differ: a short failure to read, where a deep diff of every answer runs to tens
 * of thousands of lines. Compared as values, lists in order and a record's keys in any: a record keyed by server or
 * client is built in the order its rows come, and on Citus that is the order the shards answer, not the same twice.
 */
function differing(readings: Record<string, unknown>, expected: Record<string, unknown>): string[] {
  const paths = new Set([...Object.keys(readings), ...Object.keys(expected)]);
  return [...paths].filter((path) => !isDeepStrictEqual(readings[path], expected[path]));
}

describe.each(STORE_KINDS)('a server killed with kill -9 on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let reference: TestStore;
    let server: ServerProcess | undefined;
    beforeEach(async () => {
      [db, reference] = await Promise.all([kind.open(), kind.open()]);
    });
    afterEach(async () => {
      await server?.stop();
      await Promise.all([db.dispose(), reference.dispose()]);
    });

    it('keeps every acknowledged event, stored and counted once, killed mid-batch and mid-fold', async () => {
      const events = mixedTraffic(3000, 41) as { id: string }[];
      const batches = Array.from({ length: Math.ceil(events.length / BATCH) }, (_, i) =>
        events.slice(i * BATCH, (i + 1) * BATCH),
      );
      const acknowledged = new Set<number>();
      const queuedAtKill: number[] = [];
      let next = 0;
      server = await spawnServer(db.config);
      for (let kill = 0; kill < KILLS; kill++) {
        // Batches back to back: the fold trails them, so at the kill it is folding what came before.
        const upTo = Math.round(((kill + 1) * batches.length) / (KILLS + 1));
        for (; next < upTo; next++) if (await send(server, batches[next] ?? [])) acknowledged.add(next);
        queuedAtKill.push((await analysisHealth(server.url)).pendingEvents);
        // One more batch, killed in flight: it may be stored or not, but it is not acknowledged.
        const inFlight = send(server, batches[next] ?? []).catch(() => false);
        await new Promise((resolve) => setTimeout(resolve, 5 * kill));
        await server.crash();
        if (await inFlight) acknowledged.add(next);
        next++;
        server = await spawnServer(db.config);
      }

      // Every acknowledged event is there, once, before anything is sent again.
      const acknowledgedIds = [...acknowledged].flatMap((i) => (batches[i] ?? []).map((event) => event.id));
      const stored = await db.store.all<{ n: number | string }>(
        sql`SELECT COUNT(*) AS n FROM events WHERE event_id IN ${listTable(db.store, acknowledgedIds)}`,
      );
      expect(Number(stored[0]?.n)).toBe(acknowledgedIds.length);

      // The shipper sends again what was not acknowledged, and the batch before each kill besides.
      for (let i = 0; i < batches.length; i++) {
        if (!acknowledged.has(i) || !acknowledged.has(i + 1)) expect(await send(server, batches[i] ?? [])).toBe(true);
      }
      await untilAnalysed(server.url);
      await server.stop();
      server = undefined;

      // The kills came while the fold was behind: there was queued work for the next process to take up.
      expect(queuedAtKill.some((queued) => queued > 0)).toBe(true);
      const clean = createTestApp(reference.store);
      expect((await postNdjson(clean, events)).status).toBe(200);
      expect(await readEverything(createTestApp(db.store), RANGE)).toEqual(await readEverything(clean, RANGE));
      // Five server processes started and killed: ~50 s on a busy two-core machine, past the suite's default.
    }, 180_000);

    it('leaves every event in one place, a row or a block, and every count as a store never compacted', async () => {
      // ~3,300 events of 3 servers over 3 hours: 9 blocks of a server's hour. Both stores ingest and count them alike.
      const events = mixedTraffic(3000, 43) as { id: string }[];
      expect((await postNdjson(createTestApp(db.store), events)).status).toBe(200);
      expect((await postNdjson(createTestApp(reference.store), events)).status).toBe(200);
      const expected = await rowFacts(reference.store);
      expect(expected.size).toBe(events.length);

      // Each process is killed as soon as it has swapped in a block, or a few milliseconds later (into the packing
      // of the next, or its transaction): never at rest, so that each kill lands in a pass with more to do.
      const atKills: Placed[] = [];
      let seen = await placed(db.store);
      for (let kill = 0; kill < COMPACTION_KILLS && seen.rows > 0; kill++) {
        server = await spawnServer(db.config, SERVE_ARGS);
        seen = await untilProgress(db.store, seen);
        if (seen.rows === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 7 * kill));
        await server.crash();
        server = undefined;
        seen = await placed(db.store);
        atKills.push(seen);
      }
      // The last process finishes the pass and is stopped as an operator stops it.
      server = await spawnServer(db.config, SERVE_ARGS);
      while (seen.rows > 0) seen = await untilProgress(db.store, seen);
      await server.stop();
      server = undefined;

      // The kills came mid-pass: blocks swapped in and rows still to pack, for the next process to go on from.
      console.log(
        `compaction killed at (rows, blocks): ${atKills.map((at) => `(${at.rows}, ${at.blocks})`).join(' ')}`,
      );
      expect(atKills.filter((at) => at.blocks > 0 && at.rows > 0).length).toBeGreaterThanOrEqual(2);

      // Every event in exactly one place, with what the fold and the gate decided of it and its line as sent.
      const found = await rowFacts(db.store);
      const sent = new Map(events.map((event) => [event.id, event]));
      const blocks = await db.store.all<{ data: Uint8Array }>(sql`SELECT data FROM cold_blocks`);
      expect(blocks.length).toBeGreaterThan(0);
      for (const block of blocks) {
        for (const event of unpackColdEvents(block.data)) {
          expect(found.has(event.eventId), `event ${event.eventId} is in two places`).toBe(false);
          found.set(event.eventId, { facts: factsOf({ ...event }), body: event.body });
        }
      }
      expect(found.size).toBe(events.length);
      for (const [id, { facts }] of expected) expect(found.get(id)?.facts, id).toEqual(facts);
      for (const [id, { body }] of found) if (body !== null) expect(JSON.parse(body), id).toEqual(sent.get(id));

      // Every count the dashboard reads is the reference's.
      expect(differing(await countsRead(db), await countsRead(reference))).toEqual([]);

      // Sent again after the crashes, every event is a duplicate: nothing stored or counted twice.
      const resent = await postNdjson(createTestApp(db.store), events);
      expect(((await resent.json()) as { duplicates: number }).duplicates).toBe(events.length);
      expect(await placed(db.store)).toEqual(seen);
      // Five server processes started, four killed, each packing from its fifth second: past the suite's default.
    }, 240_000);
  });
});
