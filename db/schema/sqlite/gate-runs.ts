import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The storm tracker's open retry runs, one per request key whose failed attempts may still become a retry loop.
 * A run is over once its partition has moved more than the loop gap past its last attempt, and is deleted then
 * (`last_ts` finds those): what a day of traffic leaves is the last minute's runs, not one per key ever failed.
 * WITHOUT ROWID (migration gate_runs; drizzle cannot say it). Mirrors db/schema/pg/gate-runs.ts.
 */
export const gateRuns = sqliteTable(
  'gate_runs',
  {
    /** gate_partitions.partition. */
    partition: text('partition').notNull(),
    /** The request key's digest, as in gate_keys. */
    key: text('key').notNull(),
    /** Epoch ms of the run's last attempt. */
    lastTs: integer('last_ts').notNull(),
    /** shared/analysis/storm-tracker.ts LoopRun as JSON. */
    run: text('run').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.partition, t.key] }),
    index('gate_runs_partition_last_ts_idx').on(t.partition, t.lastTs),
  ],
);
