import { blob, integer, sqliteTable } from 'drizzle-orm/sqlite-core';

/** Events' lines as they arrived, in compressed blocks (db/body-codec.ts). Mirrors db/schema/pg/event-bodies.ts. */
export const eventBodies = sqliteTable('event_bodies', {
  /** events.body_block. */
  id: integer('id').primaryKey(),
  data: blob('data', { mode: 'buffer' }).notNull(),
});
