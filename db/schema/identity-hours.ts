import { sql } from 'drizzle-orm';
import { bigint, bytes, defineTable, index, integer, primaryKey, SQLITE_WITHOUT_ROWID, text } from './tables.ts';

/**
 * Counted sends per request identity and hour, kept at ingest (db/counters/changes.ts), so that the identity
 * ranking reads each hour's most re-sent identities instead of grouping a window's events (ADR 7). SQLite
 * keeps it WITHOUT ROWID (added by hand in the migration that created it): the key is the row, stored once.
 */
export const identityHour = defineTable(
  'identity_hour',
  {
    start: bigint('start').notNull(),
    /** The identity's server: with its digest, the identity (db/stored-identity.ts). */
    server: text('server').notNull(),
    /** The identity's 128-bit digest (DOMAIN.md section 5); the same digest on two servers is two identities. */
    identity: bytes('identity').notNull(),
    sends: integer('sends').notNull(),
    /** The hour's sends per 10-minute slot (shared/analysis/alarm-candidates.ts): what the alarm list reads. */
    sends00: integer('sends_00').notNull().default(0),
    sends10: integer('sends_10').notNull().default(0),
    sends20: integer('sends_20').notNull().default(0),
    sends30: integer('sends_30').notNull().default(0),
    sends40: integer('sends_40').notNull().default(0),
    sends50: integer('sends_50').notNull().default(0),
  },
  (t) => [
    // The server before the digest: an hour's identities of one server are then one range of the key.
    primaryKey(t.start, t.server, t.identity),
    // Only re-sent identities rank: most identities are sent once an hour, and this leaves them out of the index.
    index('identity_hour_sends_idx').on(t.start, t.sends).where(sql`${t.sends} > 1`),
  ],
  SQLITE_WITHOUT_ROWID,
);
