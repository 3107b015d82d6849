import { bigint, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * Counted failures per server, time bucket, bucket, kind and code pair, kept at ingest (db/counters/changes.ts), so
 * that a server's failures per code (the server page) read counts, not the window's events: at 10M events a day,
 * grouping one server's day of events took ~0.5 s. Keyed by server first: every read is one server's window. An hour
 * level for the middle of a window, a minute level for its edges. Mirrors db/schema/sqlite/code-rollups.ts.
 */
function codeColumns() {
  return {
    server: text('server').notNull(),
    /** Epoch ms of the bucket's start, aligned to the epoch. */
    start: bigint('start', { mode: 'number' }).notNull(),
    bucket: text('bucket').notNull(),
    kind: text('kind').notNull(),
    /** The JSON-RPC error code in decimal, '' when the answer carried none (a key column cannot be null). */
    rpcCode: text('rpc_code').notNull(),
    /** The HTTP status in decimal, '' when the observer saw none. */
    httpStatus: text('http_status').notNull(),
    requests: integer('requests').notNull(),
  };
}

export const codeMinute = pgTable('code_minute', codeColumns(), (t) => [
  primaryKey({ columns: [t.server, t.start, t.bucket, t.kind, t.rpcCode, t.httpStatus] }),
]);

export const codeHour = pgTable('code_hour', codeColumns(), (t) => [
  primaryKey({ columns: [t.server, t.start, t.bucket, t.kind, t.rpcCode, t.httpStatus] }),
]);
