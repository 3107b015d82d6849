import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Every server seen in traffic or configured by an operator. Mirrors db/schema/pg/servers.ts. */
export const servers = sqliteTable('servers', {
  name: text('name').primaryKey(),
  /** Normalised discovery document (shared/discovery.ts) as JSON; null when none is known. */
  discovery: text('discovery'),
  /** The document as the operator sent it. */
  discoveryRaw: text('discovery_raw'),
  /** Per-server code overrides (shared/classify/types.ts CodeOverride[]) as JSON. */
  overrides: text('overrides').notNull(),
  /** Epoch ms of the last discovery or override change; 0 when never configured. */
  updatedAt: integer('updated_at').notNull(),
});
