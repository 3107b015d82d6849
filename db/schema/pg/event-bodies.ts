import { bigserial, customType, pgTable } from 'drizzle-orm/pg-core';

/** Bytes as node-postgres reads and writes them (drizzle has no bytea builder). */
const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/** Events' lines as they arrived, in compressed blocks (db/body-codec.ts). Mirrors db/schema/sqlite/event-bodies.ts. */
export const eventBodies = pgTable('event_bodies', {
  /** events.body_block. */
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  data: bytea('data').notNull(),
});
