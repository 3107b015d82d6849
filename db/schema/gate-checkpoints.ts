import { bigint, defineTable, text } from './tables.ts';

/**
 * The gate and storm tracker of each (client, server) at the cold horizon (docs/adr/0021-cold-events-in-blocks.md):
 * stepped through each block's events as compaction packs it, in the swap's transaction. A replay of a partition
 * whose older events are packed starts here, over the events still in rows, instead of from an empty state at its
 * oldest row. A partition without a row has no packed events the gate was stepped through. Its key states are in
 * gate_checkpoint_keys (gate-keys.ts).
 */
export const gateCheckpoints = defineTable('gate_checkpoints', {
  /** JSON [client, server]: shared/analysis/gate.ts partitionKey. */
  partition: text('partition').primaryKey(),
  /** The (ts, event id) of the last packed event stepped: a replay steps the events after it. */
  frontierTs: bigint('frontier_ts').notNull(),
  frontierId: text('frontier_id').notNull(),
  /** PartitionGateState waitUntil at the frontier. */
  waitUntil: bigint('wait_until'),
  /** shared/analysis/storm-tracker.ts PartitionStormState, encoded (storm-state-codec.ts). */
  storms: text('storms').notNull(),
  /**
   * JSON [id, first ts] of the storms final at the frontier that a replay from here must keep although their first
   * attempt is not before what the tracker still holds (shared/analysis/gate-step.ts CheckpointStorms).
   */
  finalStorms: text('final_storms').notNull(),
});
