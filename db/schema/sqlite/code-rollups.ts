import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Counted failures per server, time bucket, bucket, kind and code pair, kept at ingest (db/counters/changes.ts), so
 * that a server's failures per code (the server page) read counts, not the window's events: at 10M events a day,
 * grouping one server's day of events took ~0.5 s. Keyed by server first: every read is one server's window. An hour
 * level for the middle of a window, a minute level for its edges. WITHOUT ROWID (drizzle cannot say it): the key is
 * the row. Mirrors db/schema/pg/code-rollups.ts.
 */
function codeColumns() {
  return {
    server: text('server').notNull(),
    /** Epoch ms of the bucket's start, aligned to the epoch. */
    start: integer('start').notNull(),
    bucket: text('bucket').notNull(),
    kind: text('kind').notNull(),
    /** The JSON-RPC error code in decimal, '' when the answer carried none (a key column cannot be null). */
    rpcCode: text('rpc_code').notNull(),
    /** The HTTP status in decimal, '' when the observer saw none. */
    httpStatus: text('http_status').notNull(),
    requests: integer('requests').notNull(),
  };
}

export const codeMinute = sqliteTable('code_minute', codeColumns(), (t) => [
  primaryKey({ columns: [t.server, t.start, t.bucket, t.kind, t.rpcCode, t.httpStatus] }),
]);

export const codeHour = sqliteTable('code_hour', codeColumns(), (t) => [
  primaryKey({ columns: [t.server, t.start, t.bucket, t.kind, t.rpcCode, t.httpStatus] }),
]);
