import { bigint, defineTable, text } from './tables.ts';

/**
 * The partitions whose gate replay runs behind the commit: a late event (or a shadowed record, a reclassification)
 * in a partition too large to replay inside the batch's transaction (api/services/gate-maintenance.ts). Written in
 * the transaction that made the replay due, so a crash leaves it due; removed by the transaction that writes the
 * replay's result.
 */
export const gatePending = defineTable('gate_pending', {
  /** JSON [client, server]: shared/analysis/gate.ts partitionKey. */
  partition: text('partition').primaryKey(),
  /** Changed by every change to the partition's events: a replay computed before it is stale and not written. */
  token: text('token').notNull(),
  /** Epoch ms since the partition's verdicts have trailed its events: the lag the API reports. */
  since: bigint('since').notNull(),
});
