import { primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * What the gate holds about one request key of a partition (blocked, refused in some sessions, a transient run),
 * one row per key that holds anything: a batch reads and writes only the keys its events use, however many the
 * partition has gathered (a refusal never lapses). The table is WITHOUT ROWID (migration without_rowid_rollups; drizzle cannot say
 * it): the key is the row, stored once. Mirrors db/schema/pg/gate-keys.ts.
 */
export const gateKeys = sqliteTable(
  'gate_keys',
  {
    /** gate_partitions.partition. */
    partition: text('partition').notNull(),
    /** A digest of the request key (api/services/gate-maintenance.ts): a key holds a path of up to 4 KB. */
    key: text('key').notNull(),
    /** shared/analysis/gate.ts KeyGateState as JSON. */
    state: text('state').notNull(),
  },
  (t) => [primaryKey({ columns: [t.partition, t.key] })],
);
