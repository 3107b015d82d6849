import { afterEach, beforeEach, expect, it } from 'vitest';
import { backfillOnce } from '../../api/services/paged-backfill.ts';
import { getSetting, putSetting } from '../../db/queries/settings.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

const KEYS = { done: 'test_backfill_done', progress: 'test_backfill_after' };
const ROWS = Array.from({ length: 7 }, (_, i) => ({ seq: (i + 1) * 10 }));
/** Three rows a page, after a seq. */
const readPage = async (afterSeq: number) => ROWS.filter((row) => row.seq > afterSeq).slice(0, 3);

let db: TestStore;
beforeEach(async () => {
  db = await openTempSqlite();
});
afterEach(async () => db.dispose());

it('resumes after the last page that committed, and runs no more once done', async () => {
  const seen: number[] = [];
  const crashing = backfillOnce(db.store, KEYS, readPage, async (_tx, page) => {
    if (page[0]?.seq === 40) throw new Error('killed mid-page');
    seen.push(...page.map((row) => row.seq));
    return page.length;
  });
  await expect(crashing).rejects.toThrow('killed mid-page');
  expect(await getSetting(db.store, KEYS.progress)).toBe('30');
  expect(await getSetting(db.store, KEYS.done)).toBeNull();

  const resumed = await backfillOnce(db.store, KEYS, readPage, async (_tx, page) => {
    seen.push(...page.map((row) => row.seq));
    return page.length;
  });
  expect(resumed).toBe(4);
  expect(seen).toEqual(ROWS.map((row) => row.seq));
  expect(await getSetting(db.store, KEYS.done)).not.toBeNull();
  expect(await backfillOnce(db.store, KEYS, readPage, async () => 1)).toBe(0);
});

it("rolls a page's work back with its progress when the page fails", async () => {
  await expect(
    backfillOnce(db.store, KEYS, readPage, async (tx) => {
      await putSetting(tx, 'test_backfill_probe', 'written by a page that then failed');
      throw new Error('page failed');
    }),
  ).rejects.toThrow('page failed');
  expect(await getSetting(db.store, 'test_backfill_probe')).toBeNull();
  expect(await getSetting(db.store, KEYS.progress)).toBeNull();
});
