import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * Counted sends per request identity and hour, kept at ingest (api/services/rollups.ts), so that the identity
 * ranking reads each hour's most re-sent identities instead of grouping a window's events (ADR 7).
 * Mirrors db/schema/sqlite/identity-hours.ts.
 */
export const identityHour = pgTable(
  'identity_hour',
  {
    start: bigint('start', { mode: 'number' }).notNull(),
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
