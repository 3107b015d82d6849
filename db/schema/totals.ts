import { bigint, defineTable, primaryKey, SQLITE_WITHOUT_ROWID, text } from './tables.ts';

/*
 * All-time totals of the counts, for counters that only ever grow (GET /metrics: Prometheus reads a counter as a
 * rate). The rollups keep each count as it stands, corrected: a proxy record joined to its client's record later, a
 * reclassification or a revised gate verdict takes counts out of one row and puts them into another, and retention
 * deletes old hours. A counter that steps back by one is read by Prometheus as a reset, and its whole value is counted
 * again; so these keep apart what was counted in and what corrections withdrew (net per transaction), and retention
 * never touches them. Counted less withdrawn is the rollups' all-time count. Written by the one writer of the counts
 * (db/counters/totals.ts) from the same deltas. Bigint: at 10M requests a day, one row passes 2^31 in seven months.
 */

/** Requests per server, bucket and kind. */
export const totalRequests = defineTable(
  'total_requests',
  {
    server: text('server').notNull(),
    bucket: text('bucket').notNull(),
    kind: text('kind').notNull(),
    requestsCounted: bigint('requests_counted').notNull(),
    requestsWithdrawn: bigint('requests_withdrawn').notNull(),
  },
  (t) => [primaryKey(t.server, t.bucket, t.kind)],
  SQLITE_WITHOUT_ROWID,
);

/** Avoidable requests per server and sending client ('' where the server sent the request: its own conduct). */
export const totalAvoidable = defineTable(
  'total_avoidable',
  {
    server: text('server').notNull(),
    client: text('client').notNull(),
    avoidableCounted: bigint('avoidable_counted').notNull(),
    avoidableWithdrawn: bigint('avoidable_withdrawn').notNull(),
  },
  (t) => [primaryKey(t.server, t.client)],
  SQLITE_WITHOUT_ROWID,
);
