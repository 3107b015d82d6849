import { foldAll } from '../../api/services/fold.ts';
import { type BatchItem, ingestBatch } from '../../api/services/ingest.ts';
import type { Store } from '../../db/runner.ts';

/** Stores a batch as ingest does, then folds it: the counts a test reads then cover it. */
export async function ingestFolded(store: Store, items: readonly BatchItem[]) {
  const report = await ingestBatch(store, items);
  await foldAll(store);
  return report;
}
