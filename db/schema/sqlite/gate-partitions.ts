import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The gate replay's state per (client, server), as of the latest event replayed (the frontier), so that ingest can
 * continue the replay instead of starting over. Mirrors db/schema/pg/gate-partitions.ts.
 */
export const gatePartitions = sqliteTable('gate_partitions', {
  /** JSON [client, server]: shared/analysis/gate.ts partitionKey. */
  partition: text('partition').primaryKey(),
  /** shared/analysis/gate.ts PartitionGateState as JSON. */
  state: text('state').notNull(),
  /** The (ts, event id) of the last event replayed: a later batch continues from here, an earlier one replays. */
  frontierTs: integer('frontier_ts').notNull(),
  frontierId: text('frontier_id').notNull(),
});
