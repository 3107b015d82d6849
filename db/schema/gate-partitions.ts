import { bigint, defineTable, text } from './tables.ts';

/**
 * The gate replay's position per (client, server): the latest event replayed (the frontier) and the throttle then
 * in force, so that ingest can continue the replay instead of starting over. What the gate holds per request key is
 * in gate_keys. A partition without a row is replayed from its events.
 */
export const gatePartitions = defineTable('gate_partitions', {
  /** JSON [client, server]: shared/analysis/gate.ts partitionKey. */
  partition: text('partition').primaryKey(),
  /** shared/analysis/gate.ts PartitionGateState waitUntil: epoch ms before which the server throttles the client. */
  waitUntil: bigint('wait_until'),
  /** The (ts, event id) of the last event replayed: a later batch continues from here, an earlier one replays. */
  frontierTs: bigint('frontier_ts').notNull(),
  frontierId: text('frontier_id').notNull(),
  /**
   * shared/analysis/storm-tracker.ts PartitionStormState as JSON: the undecided tail and the open runs. Null for a
   * partition whose storms were never built, or were built by an earlier definition: it is replayed like one
   * without a row.
   */
  storms: text('storms'),
});
