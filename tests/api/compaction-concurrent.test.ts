import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactColdEvents, MIN_HOT_WINDOW_MS } from '../../api/services/compaction.ts';
import { coldBefore, recordColdBefore, unpackColdEvents } from '../../db/queries/cold-events.ts';
import type { SqlRunner, Store } from '../../db/runner.ts';
import { openStore } from '../../db/store.ts';
import { bucketStart, HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { createTestApp, postNdjson } from '../support/app.ts';
import { BASE_TS } from '../support/events.ts';
import { holdSettings, untilWaiting } from '../support/row-lock.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';
import { tableRows } from '../support/tables.ts';
import { mixedTraffic } from '../support/traffic.ts';

/**
 * Several `lens serve` on one PostgreSQL database compact at once (issue 41, docs/adr/0021-cold-events-in-blocks.md
 * "On by default"): each runs the same pass over the same cold events. In the end every event is in exactly one
 * block, the maintained numbers are what they were and the denial audit is what one compaction leaves; and with their
 * clocks an hour apart, the recorded horizon is the later clock's, whichever recorded last.
 */

const POSTGRES = STORE_KINDS.filter((kind) => kind.name === 'postgres');
/** Mixed traffic of three servers over three hours, twice, three hours apart: 18 blocks of a server's hour. */
const COPIES = 2;
const SPAN_MS = 3 * HOUR_MS;
/** The servers' clock: past every event by more than the hot window. */
const NOW = BASE_TS + COPIES * SPAN_MS + MIN_HOT_WINDOW_MS + 10 * 60_000;

/**
 * The tables compaction writes: the events move between the first three, `settings` holds the horizon; the audit's
 * bases and the gate's checkpoints move with the blocks.
 */
const MOVED = ['denial_identity', 'gate_checkpoints', 'gate_checkpoint_keys'];
const WRITTEN = new Set(['events', 'event_bodies', 'cold_blocks', 'settings', ...MOVED]);

function traffic(): Record<string, unknown>[] {
  return Array.from({ length: COPIES }, (_, copy) =>
    mixedTraffic(3000, 41 + copy).map((event) => ({ ...event, ts: Number(event.ts) + copy * SPAN_MS })),
  ).flat();
}

/** Every row of the named tables, sorted, by table: what two states of a store are compared by. */
async function rowsOf(db: SqlRunner, tables: readonly string[]): Promise<Record<string, string[]>> {
  const dump: Record<string, string[]> = {};
  for (const table of tables) {
    const rows = await db.all<Record<string, unknown>>(sql`SELECT * FROM ${sql.raw(table)}`);
    dump[table] = rows.map((row) => JSON.stringify(row)).sort();
  }
  return dump;
}

/** The store's own tables (partitions in their parents), but those compaction writes. */
async function unwrittenTables(db: SqlRunner): Promise<string[]> {
  const rows = await db.all<{ name: string }>(sql`SELECT relname AS name FROM pg_class
    WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition
    ORDER BY relname`);
  return rows.map((row) => row.name).filter((name) => !WRITTEN.has(name));
}

/** The ids of the packed events, each as often as it is packed. */
async function packedIds(db: SqlRunner): Promise<string[]> {
  const blocks = await db.all<{ data: Uint8Array }>(sql`SELECT data FROM cold_blocks`);
  return blocks.flatMap((block) => unpackColdEvents(block.data).map((event) => event.eventId));
}

describe.each(POSTGRES)('compaction by two servers at once on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    /** The second server's handle on the same database: a pool of its own. */
    let other: Store;
    const disposed: TestStore[] = [];
    beforeEach(async () => {
      db = await kind.open();
      other = await openStore(db.config);
      disposed.push(db);
    });
    afterEach(async () => {
      await other.close();
      await Promise.all(disposed.splice(0).map((store) => store.dispose()));
    });

    async function ingested(store: Store, events: readonly Record<string, unknown>[]) {
      expect((await postNdjson(createTestApp(store), events)).status).toBe(200);
      expect(await tableRows(store, 'events')).toBe(events.length);
    }

    it('packs every event into exactly one block and changes no count nor the audit', async () => {
      const reference = await kind.open();
      disposed.push(reference);
      const events = traffic();
      await ingested(db.store, events);
      await ingested(reference.store, events);
      const tables = await unwrittenTables(db.store);
      expect(tables).toEqual(expect.arrayContaining(['rollup_hour', 'identity_hour', 'denial_breach', 'denial_hour']));
      const before = await rowsOf(db.store, tables);
      for (const table of ['rollup_hour', 'identity_hour', 'denial_replay_hour']) {
        expect(before[table]?.length, table).toBeGreaterThan(0);
      }

      const passes = await Promise.all([
        compactColdEvents(other, MIN_HOT_WINDOW_MS, NOW),
        compactColdEvents(db.store, MIN_HOT_WINDOW_MS, NOW),
      ]);
      console.log(
        `two passes at once packed ${passes.map((pass) => `${pass.events} events in ${pass.blocks} blocks (${pass.discarded} discarded)`)}`,
      );
      await compactColdEvents(reference.store, MIN_HOT_WINDOW_MS, NOW);

      // Every event in exactly one block, none lost.
      expect(await tableRows(db.store, 'events')).toBe(0);
      const packed = await packedIds(db.store);
      expect(packed.length).toBe(events.length);
      expect(new Set(packed)).toEqual(new Set(events.map((event) => String(event.id))));
      expect(passes[0].events + passes[1].events).toBe(events.length);
      expect(await tableRows(db.store, 'cold_blocks')).toBe(passes[0].blocks + passes[1].blocks);

      // The counts, storms, gate and audit results as they were; the audit's bases and the gate's checkpoints as one
      // compaction moves them.
      expect(await rowsOf(db.store, tables)).toEqual(before);
      const moved = await rowsOf(db.store, MOVED);
      expect(moved.gate_checkpoints?.length).toBeGreaterThan(0);
      expect(moved).toEqual(await rowsOf(reference.store, MOVED));
    }, 120_000);

    it("keeps the later clock's horizon, whichever pass records last", async () => {
      // Reads take a range's edges before the horizon in whole minutes, trusting no row to have left after it: a
      // horizon moved back by the earlier clock would read the edges of the later clock's packed hour from no rows.
      const events = mixedTraffic(600, 5);
      await ingested(db.store, events);
      // An earlier pass's horizon, before every event; a third session holds its row, so that both passes find it,
      // then record theirs in the order they came: the later clock first.
      await db.store.transaction((tx) => recordColdBefore(tx, bucketStart(BASE_TS, HOUR_MS) - HOUR_MS));
      const held = await holdSettings(db.config, ['cold_before']);
      try {
        const later = NOW + HOUR_MS;
        const laterPass = compactColdEvents(other, MIN_HOT_WINDOW_MS, later);
        await untilWaiting(db.store, 1);
        const earlierPass = compactColdEvents(db.store, MIN_HOT_WINDOW_MS, NOW);
        await untilWaiting(db.store, 2);
        await held.release();
        const passes = await Promise.all([laterPass, earlierPass]);
        expect(passes[0].events + passes[1].events).toBe(events.length);
        expect(await packedIds(db.store)).toHaveLength(events.length);
        expect(await coldBefore(db.store)).toBe(bucketStart(later - MIN_HOT_WINDOW_MS, HOUR_MS));
      } finally {
        await held.release();
      }
    }, 60_000);
  });
});
