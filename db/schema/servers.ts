import { bigint, defineTable, text } from './tables.ts';

/** Every server seen in traffic or configured by an operator. */
export const servers = defineTable('servers', {
  name: text('name').primaryKey(),
  /** Normalised discovery document (shared/discovery.ts) as JSON; null when none is known. */
  discovery: text('discovery'),
  /** The document as the operator sent it. */
  discoveryRaw: text('discovery_raw'),
  /** Per-server code overrides (shared/classify/types.ts CodeOverride[]) as JSON. */
  overrides: text('overrides').notNull(),
  /** Epoch ms of the last discovery or override change; 0 when never configured. */
  updatedAt: bigint('updated_at').notNull(),
});
