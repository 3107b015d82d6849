import { defineTable, primaryKey, SQLITE_WITHOUT_ROWID, text } from './tables.ts';

/**
 * What the gate holds about one request key of a partition (blocked, refused in some sessions, a transient run),
 * one row per key that holds anything: a batch reads and writes only the keys its events use, however many the
 * partition has gathered (a refusal never lapses). SQLite keeps it WITHOUT ROWID (migration without_rowid_rollups): the
 * key is the row, stored once.
 */
export const gateKeys = defineTable(
  'gate_keys',
  {
    /** gate_partitions.partition. */
    partition: text('partition').notNull(),
    /** A digest of the request key (api/services/gate-maintenance.ts): a key holds a path of up to 4 KB. */
    key: text('key').notNull(),
    /** shared/analysis/gate.ts KeyGateState as JSON. */
    state: text('state').notNull(),
  },
  (t) => [primaryKey(t.partition, t.key)],
  SQLITE_WITHOUT_ROWID,
);
