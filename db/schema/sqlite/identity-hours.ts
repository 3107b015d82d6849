import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Counted sends per request identity and hour, kept at ingest (api/services/rollups.ts), so that the identity
 * ranking reads each hour's most re-sent identities instead of grouping a window's events (ADR 7). The table is
 * WITHOUT ROWID (added by hand in its migration; drizzle cannot say it): the key is the row, stored once.
 * Mirrors db/schema/pg/identity-hours.ts.
 */
export const identityHour = sqliteTable(
  'identity_hour',
  {
    start: integer('start').notNull(),
    /** DOMAIN.md section 5: `server:` + 32 hex, so a server's identities are one prefix. */
    identity: text('identity').notNull(),
    sends: integer('sends').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.start, t.identity] }),
    // Only re-sent identities rank: most identities are sent once an hour, and this leaves them out of the index.
    index('identity_hour_sends_idx').on(t.start, t.sends).where(sql`${t.sends} > 1`),
  ],
);
