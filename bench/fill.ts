import { foldAll } from '../api/services/fold.ts';
import { ingestBatch } from '../api/services/ingest.ts';
import type { Store } from '../db/runner.ts';
import { DAY_MS } from '../shared/analysis/time-buckets.ts';
import { syntheticLines } from './generate.ts';

/** The time between two events at 10M events a day: the density issue 41's figures are of. */
export const SPACING_AT_10M_A_DAY_MS = DAY_MS / 10_000_000;

/** Events stored between folds while the store fills: 20 batches, two folds' worth. */
const FOLD_EVERY = 100_000;

export interface Filled {
  ndjsonBytes: number;
  /** The bench process's peak RSS while ingesting. */
  peakRss: number;
  seconds: number;
}

/**
 * Ingests `events` generated lines (seed 7) from `start`, `spacingMs` apart, in batches of 5,000 through the
 * server's own ingest, and counts them as the server does behind the commit.
 */
export async function fillStore(store: Store, events: number, start: number, spacingMs: number): Promise<Filled> {
  let ndjsonBytes = 0;
  let peakRss = 0;
  let batch: { line: number; text: string }[] = [];
  const began = performance.now();
  let i = 0;
  for (const text of syntheticLines(events, 7, start, spacingMs)) {
    ndjsonBytes += Buffer.byteLength(text) + 1;
    batch.push({ line: ++i, text });
    if (batch.length === 5000) {
      await ingestBatch(store, batch);
      batch = [];
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      // The reads are of counted events: fold what ingest queued, every few batches, as the server does behind the
      // commit. Folded only at the end, a backlog of millions was folded at a crawl: the first fold replays every
      // partition's events, and each audit of a refused identity reads its sends still queued (ADR 10).
      if (i % FOLD_EVERY === 0) await foldAll(store);
    }
  }
  if (batch.length > 0) await ingestBatch(store, batch);
  await foldAll(store);
  return { ndjsonBytes, peakRss, seconds: (performance.now() - began) / 1000 };
}
