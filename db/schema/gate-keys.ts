import { defineTable, primaryKey, SQLITE_WITHOUT_ROWID, text } from './tables.ts';

/**
 * What the gate holds about one request key of a partition (blocked, refused in some sessions, a transient run),
 * one row per key that holds anything: a batch reads and writes only the keys its events use, however many the
 * partition has gathered (a refusal never lapses). SQLite keeps it WITHOUT ROWID (migration without_rowid_rollups): the
 * key is the row, stored once.
 */
export const gateKeys = keyStatesTable('gate_keys');

/**
 * What the gate held about each request key at its checkpoint at the cold horizon (gate-checkpoints.ts): the same
 * rows as gate_keys, written by compaction's swap.
 */
export const gateCheckpointKeys = keyStatesTable('gate_checkpoint_keys');

/** A table of key states by partition: `gate_keys`, and `gate_checkpoint_keys`, the same at the cold horizon. */
function keyStatesTable(name: 'gate_keys' | 'gate_checkpoint_keys') {
  return defineTable(
    name,
    {
      /** gate_partitions.partition. */
      partition: text('partition').notNull(),
      /** A digest of the request key (api/services/gate-keys.ts): a key holds a path of up to 4 KB. */
      key: text('key').notNull(),
      /** shared/analysis/gate.ts KeyGateState as JSON. */
      state: text('state').notNull(),
    },
    (t) => [primaryKey(t.partition, t.key)],
    SQLITE_WITHOUT_ROWID,
  );
}
