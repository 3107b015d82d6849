import { bytes, defineTable, serial } from './tables.ts';

/** Events' lines as they arrived, in compressed blocks (db/body-codec.ts). */
export const eventBodies = defineTable('event_bodies', {
  /**
   * events.body_block. SQLite keeps its plain rowid, without AUTOINCREMENT: the SQLite writer lets it number the
   * blocks (db/sqlite-writer.worker.mjs), and a deleted block is one no event refers to, so its id may come back.
   */
  id: serial('id', { sqlite: { autoIncrement: false } }),
  data: bytes('data').notNull(),
});
