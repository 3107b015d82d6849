import {
  bigint,
  type ColumnDecl,
  defineTable,
  index,
  integer,
  type KeyColumns,
  primaryKey,
  SQLITE_WITHOUT_ROWID,
  text,
} from './tables.ts';

/**
 * Counted requests and avoidable requests per time bucket, server, client, bucket and kind, kept current at ingest
 * (declared in db/counters/families.ts) so that dashboard counts read thousands of rows, not millions of events. Hours and 5
 * minutes: a day is 24 hourly rows per group, an edge of a range is read from 5-minute rows and the events. A second
 * family leaves the client out (far fewer rows: charts, server lists, a server's conduct) and adds a minute level; a
 * third leaves the server out (a client's counts and conduct over all servers: a day of a meshed federation is
 * thousands of (server, client) rows an hour, but tens of clients); a fourth keeps only avoidable requests per
 * (server, client); a fifth keeps neither (the whole federation's counts: its charts). SQLite keeps every table
 * WITHOUT ROWID (migrations without_rowid_rollups and fleet_rollups): the key is the row, stored once.
 */
function rollupColumns() {
  return {
    /** Epoch ms of the bucket's start, aligned to the epoch. */
    start: bigint('start').notNull(),
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
export const rollup5Min = defineTable(
  'rollup_5min',
  clientRollupColumns(),
  (t) => [
    primaryKey(t.start, t.server, t.client, t.bucket, t.kind),
    index('rollup_5min_server_idx').on(t.server, t.start),
  ],
  SQLITE_WITHOUT_ROWID,
);

export const rollupHour = defineTable(
  'rollup_hour',
  clientRollupColumns(),
  (t) => [
    primaryKey(t.start, t.server, t.client, t.bucket, t.kind),
    index('rollup_hour_server_idx').on(t.server, t.start),
  ],
  SQLITE_WITHOUT_ROWID,
);

/** A rollup table without secondary indexes: its key is its grouping. */
function keyedRollup<K extends string>(name: string, columns: Record<K, ColumnDecl>, [first, ...rest]: KeyColumns<K>) {
  return defineTable(
    name,
    columns,
    (t) => [primaryKey(t[first], ...rest.map((column) => t[column]))],
    SQLITE_WITHOUT_ROWID,
  );
}

/** The server family keeps the conduct counters too, so that a server's conduct needs no read of its clients. */
function serverRollupColumns() {
  const { client: _client, ...columns } = clientRollupColumns();
  return columns;
}

const SERVER_KEY = ['start', 'server', 'bucket', 'kind'] as const;

export const rollupServerMinute = keyedRollup('rollup_server_minute', serverRollupColumns(), SERVER_KEY);

export const rollupServer5Min = keyedRollup('rollup_server_5min', serverRollupColumns(), SERVER_KEY);

export const rollupServerHour = keyedRollup('rollup_server_hour', serverRollupColumns(), SERVER_KEY);

function clientOnlyRollupColumns() {
  const { server: _server, ...columns } = clientRollupColumns();
  return columns;
}

const CLIENT_KEY = ['start', 'client', 'bucket', 'kind'] as const;

export const rollupClientMinute = keyedRollup('rollup_client_minute', clientOnlyRollupColumns(), CLIENT_KEY);

export const rollupClient5Min = keyedRollup('rollup_client_5min', clientOnlyRollupColumns(), CLIENT_KEY);

export const rollupClientHour = keyedRollup('rollup_client_hour', clientOnlyRollupColumns(), CLIENT_KEY);

/**
 * Avoidable requests per (server, client) alone, without bucket and kind: which servers a client hurts most (GET
 * /clients) is a few rows per pair, where the family with both keeps one per bucket and kind. Rows are written only
 * where some request was avoidable.
 */
function pairAvoidableColumns() {
  const { start, server, client, avoidable } = rollupColumns();
  return { start, server, client, avoidable };
}

const PAIR_KEY = ['start', 'server', 'client'] as const;

export const rollupAvoidableMinute = keyedRollup('rollup_avoidable_minute', pairAvoidableColumns(), PAIR_KEY);

export const rollupAvoidable5Min = keyedRollup('rollup_avoidable_5min', pairAvoidableColumns(), PAIR_KEY);

export const rollupAvoidableHour = keyedRollup('rollup_avoidable_hour', pairAvoidableColumns(), PAIR_KEY);

/**
 * The whole federation's counts per bucket and kind, no server and no client: a day's chart is ~1.7k 5-minute rows
 * here, against ~43k per server at 10M events a day (~24 ms to sum, against ~3 ms).
 */
function fleetRollupColumns() {
  const { start, bucket, kind, requests, avoidable } = rollupColumns();
  return { start, bucket, kind, requests, avoidable };
}

const FLEET_KEY = ['start', 'bucket', 'kind'] as const;

export const rollupFleetMinute = keyedRollup('rollup_fleet_minute', fleetRollupColumns(), FLEET_KEY);

export const rollupFleet5Min = keyedRollup('rollup_fleet_5min', fleetRollupColumns(), FLEET_KEY);

export const rollupFleetHour = keyedRollup('rollup_fleet_hour', fleetRollupColumns(), FLEET_KEY);
