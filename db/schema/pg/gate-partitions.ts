import { bigint, pgTable, text } from 'drizzle-orm/pg-core';

/**
 * The gate replay's state per (client, server), as of the latest event replayed (the frontier), so that ingest can
 * continue the replay instead of starting over. Mirrors db/schema/sqlite/gate-partitions.ts.
 */
export const gatePartitions = pgTable('gate_partitions', {
  /** JSON [client, server]: shared/analysis/gate.ts partitionKey. */
  partition: text('partition').primaryKey(),
  /** shared/analysis/gate.ts PartitionGateState as JSON. */
  state: text('state').notNull(),
  /** The (ts, event id) of the last event replayed: a later batch continues from here, an earlier one replays. */
  frontierTs: bigint('frontier_ts', { mode: 'number' }).notNull(),
  frontierId: text('frontier_id').notNull(),
});
