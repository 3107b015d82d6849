import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, get, TEST_NOW } from '../support/app.ts';
import { openDemoSqlite, type TestStore } from '../support/stores.ts';

/** The resident bytes of this process's mappings of `file` (/proc/self/smaps; Linux, as the soak reads them). */
function residentMapped(file: string): number {
  let kb = 0;
  let counting = false;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) counting = line.endsWith(file);
    else if (counting && line.startsWith('Rss:')) kb += Number(/(\d+) kB/.exec(line)?.[1] ?? 0);
  }
  return kb * 1024;
}

/**
 * Issue 39 item 10 (ADR 20, "The reader's pages"): the embedded store's reads go through SQLite's small cache, not
 * through a mapping of the file, whose touched pages counted in the server's RSS without bound (131 MB of a 168 MB
 * store in the soak, all of it for a large one). A dashboard's day of reads must leave none of the store mapped.
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
    expect(residentMapped(join(db.config.dataDir, 'lens.sqlite'))).toBe(0);
  });
});
