import { bigint, defineTable } from './tables.ts';

/**
 * The stored events not yet folded into the maintained numbers (api/services/fold.ts): a run of event seqs per row,
 * written in the transaction that stored the events and deleted in the one that folded them, so a crash at any
 * point leaves each event either counted or still queued.
 */
export const foldQueue = defineTable('fold_queue', {
  /** The run is the events with seq from first_seq to last_seq, all stored by one transaction. */
  firstSeq: bigint('first_seq').primaryKey(),
  lastSeq: bigint('last_seq').notNull(),
  /** The earliest event time of the run: folds take runs in event-time order, so that fewer replay a partition. */
  minTs: bigint('min_ts').notNull(),
  /** Epoch ms of the transaction that stored them: how far the analysis trails (api/services/analysis-lag.ts). */
  committedAt: bigint('committed_at').notNull(),
});
