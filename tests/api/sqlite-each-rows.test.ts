import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdsLongText } from '../../db/sqlite.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

/**
 * The writer thread takes a batched statement's rows as JSON, or, when they hold long strings (a partition's storm
 * state), cloned as they are (db/sqlite.ts), and answers a read's rows the same two ways: either way the store must
 * hold, and a read answer, exactly the values sent.
 */
describe("the embedded store's batched rows", () => {
  let db: TestStore;
  beforeAll(async () => {
    db = await openTempSqlite();
  });
  afterAll(async () => db.dispose());

  // Quotes and backslashes (JSON escapes them), NUL, a character past the BMP. (A lone surrogate is not kept by SQLite
  // on either path: it stores UTF-8.)
  const odd = 'a"b\\c\u0000de🚀';
  const long = `{"texts":[${`"${odd}",`.repeat(60)}"end"]}`;

  it('sends rows holding a long string as they are, and short rows as JSON', () => {
    expect(long.length).toBeGreaterThan(512);
    expect(holdsLongText([[1, long]])).toBe(true);
    expect(
      holdsLongText([
        [1, 'short'],
        [2, null],
        [3, long],
      ]),
    ).toBe(true);
    expect(
      holdsLongText([
        [1, odd],
        [2, null],
      ]),
    ).toBe(false);
    expect(holdsLongText([])).toBe(false);
  });

  it('stores the values of either kind of rows exactly', async () => {
    const rows = [
      [1, long],
      [2, null],
      [3, odd],
      [4, `${long}${odd}`],
    ];
    const stored = await db.store.transaction(async (tx) => {
      await tx.run(sql`CREATE TABLE each_rows (k integer PRIMARY KEY, v text)`);
      await tx.runEach?.('INSERT INTO each_rows (k, v) VALUES (?, ?)', rows);
      await tx.runEach?.('INSERT INTO each_rows (k, v) VALUES (?, ?)', [
        [5, odd],
        [6, 'x'],
      ]);
      return tx.all<{ k: number; v: string | null }>(sql`SELECT k, v FROM each_rows ORDER BY k`);
    });
    expect(stored.map(({ k, v }) => [k, v])).toEqual([...rows, [5, odd], [6, 'x']]);
  });
});
