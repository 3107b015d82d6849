import { getSetting, putSetting, setSettingOnce } from '../../db/queries/settings.ts';
import type { Store, TxRunner } from '../../db/runner.ts';

/** A backfill's two settings: set once it is done, and the last seq a committed page reached. */
export interface BackfillKeys {
  done: string;
  progress: string;
}

/**
 * Runs a backfill over stored rows once per store, a page per transaction: `readPage` answers the rows after a seq (in
 * seq order, empty at the end), `applyPage` does the page's work in its transaction and answers how many it changed.
 * The page's last seq is written in the same transaction, so a crash resumes after the last page that committed;
 * `done` is set at the end (a migration sets it for a store with nothing to backfill). Answers the pages' sum.
 */
export async function backfillOnce<Row extends { seq: number }>(
  store: Store,
  keys: BackfillKeys,
  readPage: (afterSeq: number) => Promise<Row[]>,
  applyPage: (tx: TxRunner, page: Row[]) => Promise<number>,
): Promise<number> {
  if ((await getSetting(store, keys.done)) !== null) return 0;
  let total = 0;
  let afterSeq = Number((await getSetting(store, keys.progress)) ?? 0);
  for (;;) {
    const page = await readPage(afterSeq);
    const last = page.at(-1);
    if (last === undefined) break;
    total += await store.transaction(async (tx) => {
      const changed = await applyPage(tx, page);
      await putSetting(tx, keys.progress, String(last.seq));
      return changed;
    });
    afterSeq = last.seq;
  }
  await setSettingOnce(store, keys.done, new Date().toISOString());
  return total;
}
