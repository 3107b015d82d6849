import { bigint, defineTable, index, integer, primaryKey, text } from './tables.ts';

/**
 * Retry storms (DOMAIN.md section 6: probe storms, reconnect loops, retry loops) as the fold keeps them (stepped by
 * shared/analysis/gate-step.ts, written by api/services/gate-maintenance.ts), whole, so that lists read rows instead of a
 * window's events. The attempts of one are found again from its events and its key when it is opened.
 */
export const storms = defineTable(
  'storms',
  {
    /**
     * shared/analysis/storms.ts stormId: kind, client, server and the first attempt's id, digested. The key is
     * (id, server), so that a store distributed by server keeps it on one node (ADR 14).
     */
    id: text('id').notNull(),
    client: text('client').notNull(),
    server: text('server').notNull(),
    /** Who sent the attempts: `client`, or `server` for its own requests (sampling, elicitation, roots). */
    sentBy: text('sent_by').notNull(),
    kind: text('kind').notNull(),
    /** A retry loop's request key, a reconnect loop's endpoint, a probe storm's targets (shared/analysis/storm-model.ts). */
    key: text('key').notNull(),
    /** JSON array of the endpoints: a loop's one, a probe storm's refused ones in first-seen order. */
    paths: text('paths').notNull(),
    attempts: integer('attempts').notNull(),
    avoidable: integer('avoidable').notNull(),
    firstTs: bigint('first_ts').notNull(),
    lastTs: bigint('last_ts').notNull(),
    firstBucket: text('first_bucket').notNull(),
    firstKind: text('first_kind').notNull(),
    /** The actor and the fault, in a sentence (shared/analysis/storm-titles.ts). */
    title: text('title').notNull(),
  },
  (t) => [
    primaryKey(t.id, t.server),
    // The storms of a window, counted and put in any list order (ranked: active first, then most avoidable; by start,
    // first or newest) from the index alone: a day at 10M events a day is ~200k storms, and only the few shown are
    // read whole. Without kind and attempts, ordering by start fetched every row (~50 and ~110 ms).
    index('storms_window_idx').on(t.lastTs, t.firstTs, t.avoidable, t.id, t.kind, t.attempts),
    // One server's storms the same way (its page lists the newest and counts them): a server's day is ~7k storms,
    // each fetched to be ordered and counted before (~16 ms at 10M events a day).
    index('storms_server_window_idx').on(t.server, t.lastTs, t.firstTs, t.avoidable, t.id, t.kind, t.attempts),
    index('storms_client_server_idx').on(t.client, t.server),
  ],
);
