import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillActionability } from '../../api/services/actionability-backfill.ts';
import { foldAll } from '../../api/services/fold.ts';
import { setDiscovery, setOverrides } from '../../api/services/server-config.ts';
import { profileCounts, rawProfileCounts } from '../../db/counters/actionability.ts';
import { unpackViews } from '../../shared/actionability/profile.ts';
import { parseDiscovery } from '../../shared/discovery.ts';
import { BASE_TS } from '../support/events.ts';
import { ingestFolded } from '../support/ingest.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';
import { mixedTraffic } from '../support/traffic.ts';

const HOUR = 3_600_000;
const RANGES = [
  { from: 0, to: BASE_TS + 5 * HOUR, eventsFrom: null },
  { from: BASE_TS + 123_456, to: BASE_TS + 2 * HOUR + 7_891, eventsFrom: null },
  { from: BASE_TS + HOUR, to: BASE_TS + 2 * HOUR, eventsFrom: null },
  { from: BASE_TS + 59_999, to: BASE_TS + 61_001, eventsFrom: null },
];

describe.each(STORE_KINDS)('actionability counts on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    beforeAll(async () => {
      db = await kind.open();
      // Out of order, a batch sent twice, proxy records shadowed by their clients', then reclassification.
      const events = mixedTraffic(1200, 7).sort((a, b) => String(a.id).localeCompare(String(b.id)));
      for (let i = 0; i < events.length; i += 300) {
        await ingestFolded(
          db.store,
          events.slice(i, i + 300).map((value, n) => ({ line: n + 1, value })),
        );
      }
      await ingestFolded(
        db.store,
        events.slice(0, 250).map((value, n) => ({ line: n + 1, value })),
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

    it('count exactly what the counted failures carry, over any range, per server and for the fleet', async () => {
      let rows = 0;
      for (const range of RANGES) {
        for (const server of [undefined, 's0', 's2']) {
          const scope = { ...range, ...(server !== undefined && { server }) };
          const kept = await profileCounts(db.store, scope);
          expect(kept, JSON.stringify(scope)).toEqual(await rawProfileCounts(db.store, scope));
          rows += kept.length;
        }
      }
      expect(rows).toBeGreaterThan(20);
      // Every counted failure is in, none twice, and no success: the failures per bucket say how many.
      const failed = await db.store.all<{ n: number | string }>(
        sql`SELECT count(*) AS n FROM events WHERE counted = 1 AND bucket <> 'ok'`,
      );
      const all = await profileCounts(db.store, RANGES[0] ?? { from: 0, to: 0, eventsFrom: null });
      expect(all.reduce((n, row) => n + row.failures, 0)).toBe(Number(failed[0]?.n));
    });

    it('hold what the traffic earns: a 429 with Retry-After earns D, P, C, R with transport, nothing in control', async () => {
      const all = await profileCounts(db.store, RANGES[0] ?? { from: 0, to: 0, eventsFrom: null });
      const views = all.map((row) => unpackViews(row.packed));
      // Its answer has no text: the content view is the control view.
      expect(views).toContainEqual({ control: 0b000000, transport: 0b111001, content: 0b000000 });
      // -32602 at HTTP 200: 110000 in every view.
      expect(views).toContainEqual({ control: 0b110000, transport: 0b110000, content: 0b110000 });
    });

    it('are rebuilt from the stored lines for events stored before migration actionability', async () => {
      const before = await profileCounts(db.store, RANGES[0] ?? { from: 0, to: 0, eventsFrom: null });
      await db.store.run(sql`UPDATE events SET act_profile = NULL`);
      await db.store.run(sql`DELETE FROM actionability_minute`);
      await db.store.run(sql`DELETE FROM actionability_hour`);
      await db.store.run(sql`DELETE FROM settings WHERE key LIKE 'actionability_v%'`);
      // A failure still queued for its fold (as though stored just before the upgrade) is left to its fold.
      const queued = await db.store.all<{ seq: number | string; ts: number | string }>(
        sql`SELECT seq, ts FROM events WHERE counted = 1 AND bucket <> 'ok' AND source = 'client' ORDER BY seq LIMIT 1`,
      );
      const seq = Number(queued[0]?.seq);
      await db.store.run(sql`INSERT INTO fold_queue (first_seq, last_seq, min_ts, committed_at)
        VALUES (${seq}, ${seq}, ${Number(queued[0]?.ts)}, ${BASE_TS})`);
      expect(await backfillActionability(db.store)).toBeGreaterThan(100);
      const total = (rows: { failures: number }[]) => rows.reduce((n, row) => n + row.failures, 0);
      const range = RANGES[0] ?? { from: 0, to: 0, eventsFrom: null };
      expect(total(await profileCounts(db.store, range))).toBe(total(before) - 1);
      await foldAll(db.store);
      expect(await profileCounts(db.store, range)).toEqual(before);
      // Once done, never again.
      expect(await backfillActionability(db.store)).toBe(0);
    });
  });
});
