import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { DEFAULT_CONFIG } from '../../api/env.ts';
import { Folder, foldAll, foldQueued } from '../../api/services/fold.ts';
import { FoldThread } from '../../api/services/fold-thread.ts';
import { createTestApp, get, postNdjson, postNdjsonUnfolded, putJson, TEST_NOW, type TestApp } from '../support/app.ts';
import { BASE_TS } from '../support/events.ts';
import { readEverything } from '../support/readings.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';
import { mixedTraffic } from '../support/traffic.ts';

/**
 * The fold behind the commit (api/services/fold.ts): ingest answers once the events are stored, the counts follow
 * in folds of any size, and what the reads say at the end is what one ingest of the same events, counted at once,
 * says. Meanwhile every read says how far the analysis trails.
 */

const RANGE = `from=${new Date(BASE_TS - 3_600_000).toISOString()}&to=${new Date(BASE_TS + 86_400_000).toISOString()}`;
const DISCOVERY = { endpoints: [{ method: 'POST', path: '/mcp' }, { path: '/p1' }] };

/** Deterministic shuffle, so that batches hold proxy copies before, after and beside their client records. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

function batches<T>(items: readonly T[], count: number): T[][] {
  const size = Math.ceil(items.length / count);
  return Array.from({ length: count }, (_, i) => items.slice(i * size, (i + 1) * size));
}

describe.each(STORE_KINDS)('the fold behind the commit on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let reference: TestStore;
    /** An app whose folder never runs: the folds happen when the test says. */
    let app: TestApp;
    /** Its folder: ingest hands it the rows it stored (FreshRows), which a fold given them reads only in part. */
    let folder: Folder;
    beforeEach(async () => {
      [db, reference] = await Promise.all([kind.open(), kind.open()]);
      folder = new Folder(db.store);
      await folder.stop();
      app = createApp({ store: db.store, clock: () => TEST_NOW, config: DEFAULT_CONFIG, folder });
    });
    afterEach(async () => Promise.all([db.dispose(), reference.dispose()]));

    /** The same events in one batch, counted at once, on a store of its own. */
    async function counted(events: readonly object[], discoveryFirst = false) {
      const other = createTestApp(reference.store);
      if (discoveryFirst) await putJson(other, '/api/v1/servers/s1/discovery', DISCOVERY);
      expect((await postNdjson(other, events)).status).toBe(200);
      return readEverything(other, RANGE);
    }

    async function analysis() {
      return (await (await get(app, '/api/v1/health')).json()).analysis as {
        pendingEvents: number;
        lagMs: number;
        analysedThrough: string;
      };
    }

    it('answers once the events are stored, counts them once folded, and says meanwhile how far it trails', async () => {
      const events = mixedTraffic(300, 7);
      const report = await (await postNdjsonUnfolded(app, events)).json();
      expect(report).toMatchObject({ accepted: events.length, rejectedTotal: 0 });
      expect(await analysis()).toMatchObject({ pendingEvents: events.length });

      const summary = await get(app, `/api/v1/summary?${RANGE}`);
      expect((await summary.json()).overall.total).toBe(0);
      const lag = Number(summary.headers.get('lens-analysis-lag-ms'));
      const through = Date.parse(summary.headers.get('lens-analysed-through') ?? '');
      expect(lag).toBeGreaterThanOrEqual(0);
      expect(through).toBeLessThanOrEqual(Date.now());
      expect(Date.now() - through).toBeGreaterThanOrEqual(lag);

      expect(await foldAll(db.store)).toBe(events.length);
      expect(await analysis()).toMatchObject({ pendingEvents: 0, lagMs: 0 });
      expect(await readEverything(app, RANGE)).toEqual(await counted(events));
    });

    it('counts the same in folds of any size, whichever side of a request was stored first', async () => {
      const events = shuffled(mixedTraffic(1200, 3), 17);
      for (const batch of batches(events, 6)) {
        expect((await (await postNdjsonUnfolded(app, batch)).json()).accepted).toBe(batch.length);
        // A fold smaller than a batch: folds end inside batches and leave their partners queued. Every other one
        // takes the rows ingest held for it, the others read theirs back.
        await foldQueued(db.store, 97, undefined, folder.fresh);
        await foldQueued(db.store, 97);
      }
      let folds = 0;
      while ((await foldQueued(db.store, 97, undefined, folds % 2 === 0 ? folder.fresh : undefined)) > 0) folds++;
      expect(folds).toBeGreaterThan(5);
      expect(await analysis()).toMatchObject({ pendingEvents: 0 });
      expect(await readEverything(app, RANGE)).toEqual(await counted(events));
    });

    it('takes a batch sent again as duplicates, queued or folded, and counts it once', async () => {
      const events = mixedTraffic(200, 9);
      await postNdjsonUnfolded(app, events);
      expect((await (await postNdjsonUnfolded(app, events)).json()).duplicates).toBe(events.length);
      await foldAll(db.store);
      expect((await (await postNdjsonUnfolded(app, events)).json()).duplicates).toBe(events.length);
      expect(await analysis()).toMatchObject({ pendingEvents: 0 });
      expect(await readEverything(app, RANGE)).toEqual(await counted(events));
    });

    it('folds on a thread of its own, with a connection of its own, what this one stored', async () => {
      const events = mixedTraffic(400, 13);
      await postNdjsonUnfolded(app, events);
      const thread = new FoldThread(db.config, { inlineReplayMax: DEFAULT_CONFIG.inlineReplayMax, log: () => {} });
      try {
        thread.kick();
        await thread.settled();
        expect(await analysis()).toMatchObject({ pendingEvents: 0 });
      } finally {
        await thread.stop();
      }
      expect(await readEverything(app, RANGE)).toEqual(await counted(events));
    });

    it('reclassifies events still waiting for their fold, and counts them under their new bucket', async () => {
      const events = mixedTraffic(600, 5);
      const [early, late] = batches(events, 2) as [object[], object[]];
      await postNdjsonUnfolded(app, early);
      await foldQueued(db.store, 150, undefined, folder.fresh);
      await postNdjsonUnfolded(app, late);
      expect((await analysis()).pendingEvents).toBeGreaterThan(late.length);
      const changed = await putJson(app, '/api/v1/servers/s1/discovery', DISCOVERY);
      expect((await changed.json()).reclassified).toBeGreaterThan(0);
      // The rows held for the fold are as ingest stored them; the fold reads the new buckets from the store.
      expect(folder.fresh.known.size).toBeGreaterThan(late.length);
      while ((await foldQueued(db.store, 150, undefined, folder.fresh)) > 0);
      expect(folder.fresh.known.size).toBe(0);
      expect(await readEverything(app, RANGE)).toEqual(await counted(events, true));
    });
  });
});
