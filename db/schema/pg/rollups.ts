import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * Counted requests and avoidable requests per time bucket, server, client, bucket and kind, kept current at ingest
 * (api/services/rollups.ts) so that dashboard counts read thousands of rows, not millions of events. Two
 * resolutions: a day is 24 hourly rows per group, an edge of a range is read from minutes. A second family leaves
 * the client out (far fewer rows: charts and server lists need no client) and adds a 5-minute level for day charts. Mirrors
 * db/schema/sqlite/rollups.ts.
 */
function rollupColumns() {
  return {
    /** Epoch ms of the bucket's start, aligned to the epoch. */
    start: bigint('start', { mode: 'number' }).notNull(),
    server: text('server').notNull(),
    /** '' for requests that name no client (a key column cannot be null). */
    client: text('client').notNull(),
    bucket: text('bucket').notNull(),
    kind: text('kind').notNull(),
    requests: integer('requests').notNull(),
    avoidable: integer('avoidable').notNull(),
  };
}

export const rollupMinute = pgTable('rollup_minute', rollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.server, t.client, t.bucket, t.kind] }),
  index('rollup_minute_server_idx').on(t.server, t.start),
]);

export const rollupHour = pgTable('rollup_hour', rollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.server, t.client, t.bucket, t.kind] }),
  index('rollup_hour_server_idx').on(t.server, t.start),
]);

function serverRollupColumns() {
  const { client: _client, ...columns } = rollupColumns();
  return columns;
}

export const rollupServerMinute = pgTable('rollup_server_minute', serverRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.server, t.bucket, t.kind] }),
]);

export const rollupServer5Min = pgTable('rollup_server_5min', serverRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.server, t.bucket, t.kind] }),
]);

export const rollupServerHour = pgTable('rollup_server_hour', serverRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.server, t.bucket, t.kind] }),
]);
