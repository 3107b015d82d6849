import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * Counted requests and avoidable requests per time bucket, server, client, bucket and kind, kept current at ingest
 * (db/counters/changes.ts) so that dashboard counts read thousands of rows, not millions of events. Hours and 5
 * minutes: a day is 24 hourly rows per group, an edge of a range is read from 5-minute rows and the events. A second
 * family leaves the client out (far fewer rows: charts, server lists, a server's conduct) and adds a minute level; a
 * third leaves the server out (a client's counts and conduct over all servers: a day of a meshed federation is
 * thousands of (server, client) rows an hour, but tens of clients); a fourth keeps only avoidable requests per
 * (server, client); a fifth keeps neither (the whole federation's counts: its charts). Mirrors
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

/**
 * The client family also counts client conduct (shared/analysis/conduct.ts): avoidable requests by gate reason, and
 * requests sent without having read the discovery document (conduct's "probed without discovery" is those in the
 * refusal / not_declared rows).
 */
function clientRollupColumns() {
  return {
    ...rollupColumns(),
    afterRefusal: integer('after_refusal').notNull().default(0),
    pastTransientBudget: integer('past_transient_budget').notNull().default(0),
    beforeRetryAfter: integer('before_retry_after').notNull().default(0),
    identicalAfterAmbiguous: integer('identical_after_ambiguous').notNull().default(0),
    undiscovered: integer('undiscovered').notNull().default(0),
  };
}

// The family's finest level: a window's edges finer than 5 minutes come from the events, which a read narrowed to a
// server or a client finds through its index. A minute level held about one row per event at 10M events a day
// (43 bytes an event on disk) and cost a third of the rollup writes (migration pair_rollups_from_5min).
export const rollup5Min = pgTable('rollup_5min', clientRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.server, t.client, t.bucket, t.kind] }),
  index('rollup_5min_server_idx').on(t.server, t.start),
]);

export const rollupHour = pgTable('rollup_hour', clientRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.server, t.client, t.bucket, t.kind] }),
  index('rollup_hour_server_idx').on(t.server, t.start),
]);

/** The server family keeps the conduct counters too, so that a server's conduct needs no read of its clients. */
function serverRollupColumns() {
  const { client: _client, ...columns } = clientRollupColumns();
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

function clientOnlyRollupColumns() {
  const { server: _server, ...columns } = clientRollupColumns();
  return columns;
}

export const rollupClientMinute = pgTable('rollup_client_minute', clientOnlyRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.client, t.bucket, t.kind] }),
]);

export const rollupClient5Min = pgTable('rollup_client_5min', clientOnlyRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.client, t.bucket, t.kind] }),
]);

export const rollupClientHour = pgTable('rollup_client_hour', clientOnlyRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.client, t.bucket, t.kind] }),
]);

/**
 * Avoidable requests per (server, client) alone, without bucket and kind: which servers a client hurts most (GET
 * /clients) is a few rows per pair, where the family with both keeps one per bucket and kind. Rows are written only
 * where some request was avoidable.
 */
function pairAvoidableColumns() {
  const { start, server, client, avoidable } = rollupColumns();
  return { start, server, client, avoidable };
}

export const rollupAvoidableMinute = pgTable('rollup_avoidable_minute', pairAvoidableColumns(), (t) => [
  primaryKey({ columns: [t.start, t.server, t.client] }),
]);

export const rollupAvoidable5Min = pgTable('rollup_avoidable_5min', pairAvoidableColumns(), (t) => [
  primaryKey({ columns: [t.start, t.server, t.client] }),
]);

export const rollupAvoidableHour = pgTable('rollup_avoidable_hour', pairAvoidableColumns(), (t) => [
  primaryKey({ columns: [t.start, t.server, t.client] }),
]);

/**
 * The whole federation's counts per bucket and kind, no server and no client: a day's chart is ~1.7k 5-minute rows
 * here, against ~43k per server at 10M events a day (~24 ms to sum, against ~3 ms).
 */
function fleetRollupColumns() {
  const { start, bucket, kind, requests, avoidable } = rollupColumns();
  return { start, bucket, kind, requests, avoidable };
}

export const rollupFleetMinute = pgTable('rollup_fleet_minute', fleetRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.bucket, t.kind] }),
]);

export const rollupFleet5Min = pgTable('rollup_fleet_5min', fleetRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.bucket, t.kind] }),
]);

export const rollupFleetHour = pgTable('rollup_fleet_hour', fleetRollupColumns(), (t) => [
  primaryKey({ columns: [t.start, t.bucket, t.kind] }),
]);
