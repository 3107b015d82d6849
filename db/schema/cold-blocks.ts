import { bigint, bytes, defineTable, index, integer, primaryKey, text } from './tables.ts';

/**
 * Events past the hot window, packed a server and clock hour at a time (docs/adr/0021-cold-events-in-blocks.md): the
 * rows' columns and their lines (shared/column-block.ts, db/cold-block.ts), in place of the events rows, their
 * indexes and their line blocks. A server's hour is cut into blocks of at most COLD_BLOCK_ROWS rows, so that reading
 * one cold event inflates a few thousand rows, not a server's whole hour. PostgreSQL keeps it in day partitions
 * beside the events' (by `hour`), dropped with the day.
 */
export const coldBlocks = defineTable(
  'cold_blocks',
  {
    server: text('server').notNull(),
    /** The clock hour the block's events are of (epoch ms of its start). */
    hour: bigint('hour').notNull(),
    /** The block's first event in (ts, seq) order: its seq, which no other block of the server and hour holds. */
    firstSeq: bigint('first_seq').notNull(),
    /** The times of its first and last events: a read of a range skips the blocks outside it unread. */
    firstTs: bigint('first_ts').notNull(),
    lastTs: bigint('last_ts').notNull(),
    rows: integer('rows').notNull(),
    data: bytes('data').notNull(),
  },
  (t) => [
    primaryKey(t.server, t.hour, t.firstSeq),
    // The fleet's events list walks the hours newest first, whatever the server.
    index('cold_blocks_hour_idx').on(t.hour),
  ],
);
