import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analysisHealth, type ServerProcess, spawnServer, untilAnalysed } from '../../bench/server-process.ts';
import { listTable } from '../../db/queries/lists.ts';
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
  });
});
