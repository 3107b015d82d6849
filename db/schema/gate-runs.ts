import { bigint, defineTable, index, primaryKey, SQLITE_WITHOUT_ROWID, text } from './tables.ts';

/**
 * The storm tracker's open retry runs, one per request key whose failed attempts may still become a retry loop.
 * A run is over once its partition has moved more than the loop gap past its last attempt, and is deleted then
 * (`last_ts` finds those): what a day of traffic leaves is the last minute's runs, not one per key ever failed.
 * SQLite keeps it WITHOUT ROWID (migration gate_runs).
 */
export const gateRuns = defineTable(
  'gate_runs',
  {
    /** gate_partitions.partition. */
    partition: text('partition').notNull(),
    /** The request key's digest, as in gate_keys. */
    key: text('key').notNull(),
    /** Epoch ms of the run's last attempt. */
    lastTs: bigint('last_ts').notNull(),
    /** shared/analysis/storm-tracker.ts LoopRun as JSON. */
    run: text('run').notNull(),
  },
  (t) => [primaryKey(t.partition, t.key), index('gate_runs_partition_last_ts_idx').on(t.partition, t.lastTs)],
  SQLITE_WITHOUT_ROWID,
);
