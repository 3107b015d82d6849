import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../api/demo/load.ts';
import { BUCKETS } from '../../shared/classify/types.ts';
import { createTestApp, get } from '../support/app.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

describe('the demo federation', () => {
  let db: TestStore;
  const now = Date.parse('2026-11-30T12:00:00Z');
  beforeAll(async () => {
    db = await openTempSqlite();
  });
  afterAll(async () => db.dispose());

  it('loads a day of traffic ending now, with every bucket represented and nothing rejected', async () => {
    const report = await loadDemo(db.store, now);
    expect(report.rejectedTotal).toBe(0);
    expect(report.accepted).toBeGreaterThan(10_000);
    const app = createTestApp(db.store);
    const summary = await (await get(app, '/api/v1/summary')).json();
    for (const bucket of BUCKETS) {
      expect(summary.overall.buckets[bucket], bucket).toBeGreaterThan(0);
    }
    // Seed 000's prober: three runs of 22 requests to undeclared paths, classified against the stored document.
    expect(summary.servers.docs.kinds.refusal.not_declared).toBe(66);
    // The storm is still running in the last ten minutes.
    const recent = await (await get(app, `/api/v1/summary?from=${now - 10 * 60_000}&server=files`)).json();
    expect(recent.overall.kinds.refusal.not_supported).toBeGreaterThan(100);
    // The 2026-07-28 server: rounds that ask for input, and a client that ignores them in a loop of its own.
    const storms = await (
      await get(app, `/api/v1/storms?server=atlas-notes&from=${now - 86_400_000}&to=${now}`)
    ).json();
    expect(storms.storms.map((storm: { client: string; kind: string }) => [storm.client, storm.kind])).toContainEqual([
      'eager-bot',
      'retry_loop',
    ]);
  });

  it('adds nothing when loaded again for the same minute', async () => {
    const again = await loadDemo(db.store, now + 5_000);
    expect(again.accepted).toBe(0);
    expect(again.duplicates).toBeGreaterThan(10_000);
  });
});
