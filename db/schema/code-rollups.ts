import { bigint, defineTable, integer, primaryKey, SQLITE_WITHOUT_ROWID, text } from './tables.ts';

/**
 * Counted failures per server, time bucket, bucket, kind and code pair, kept at ingest (declared in db/counters/families.ts), so
 * that a server's failures per code (the server page) read counts, not the window's events: at 10M events a day,
 * grouping one server's day of events took ~0.5 s. Keyed by server first: every read is one server's window. An hour
 * level for the middle of a window, a minute level for its edges. SQLite keeps both WITHOUT ROWID (migration
 * code_counts): the key is the row.
 */
function codeColumns() {
  return {
    server: text('server').notNull(),
    /** Epoch ms of the bucket's start, aligned to the epoch. */
    start: bigint('start').notNull(),
    bucket: text('bucket').notNull(),
    kind: text('kind').notNull(),
    /** The JSON-RPC error code in decimal, '' when the answer carried none (a key column cannot be null). */
    rpcCode: text('rpc_code').notNull(),
    /** The HTTP status in decimal, '' when the observer saw none. */
    httpStatus: text('http_status').notNull(),
    requests: integer('requests').notNull(),
  };
}

export const codeMinute = defineTable(
  'code_minute',
  codeColumns(),
  (t) => [primaryKey(t.server, t.start, t.bucket, t.kind, t.rpcCode, t.httpStatus)],
  SQLITE_WITHOUT_ROWID,
);

export const codeHour = defineTable(
  'code_hour',
  codeColumns(),
  (t) => [primaryKey(t.server, t.start, t.bucket, t.kind, t.rpcCode, t.httpStatus)],
  SQLITE_WITHOUT_ROWID,
);
