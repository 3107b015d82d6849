import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mappedBytes } from '../../bench/server-process.ts';
import { createTestApp, get, TEST_NOW } from '../support/app.ts';
import { openDemoSqlite, type TestStore } from '../support/stores.ts';

/**
 * Issue 39 item 10 (ADR 20, "The reader's pages"): the embedded store's reads go through SQLite's small cache, not
 * through a mapping of the file, whose touched pages counted in the server's RSS without bound (280 MB in the
 * 10-minute soak, up to 2 GB of a large store). A dashboard's day of reads must leave none of the store mapped.
 */
describe("the embedded store's reads map none of the file", () => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openDemoSqlite(TEST_NOW);
  }, 120_000);
  afterAll(async () => db.dispose());

  it('reads the day through the dashboard and holds none of the store in mapped pages', async () => {
    const app = createTestApp(db.store);
    const day = `from=${TEST_NOW - 24 * 3_600_000}&to=${TEST_NOW}`;
    for (const path of ['summary', 'timeseries', 'servers', 'identities', 'storms', 'context-gap', 'actionability']) {
      const response = await get(app, `/api/v1/${path}?${day}`);
      expect(response.status, path).toBe(200);
      expect((await response.arrayBuffer()).byteLength, path).toBeGreaterThan(2);
    }
    expect(mappedBytes(process.pid, join(db.config.dataDir, 'lens.sqlite'))).toBe(0);
  });
});
