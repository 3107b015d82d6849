import { bigint, defineTable, integer, primaryKey, SQLITE_WITHOUT_ROWID, text } from './tables.ts';

/**
 * Counted sampling requests per minute, server, client, requested scope, applied scope and reason, kept at ingest
 * (declared in db/counters/families.ts), so that the context gap (DOMAIN.md section 7) reads counts, not the window's events.
 * SQLite keeps it WITHOUT ROWID (migration without_rowid_rollups), as it does the two below (migration
 * context_per_server).
 */
export const contextMinute = defineTable(
  'context_minute',
  {
    start: bigint('start').notNull(),
    server: text('server').notNull(),
    /** '' for requests that name no client. */
    client: text('client').notNull(),
    requested: text('requested').notNull(),
    /** '' when the response did not say what it applied ("not reported"). */
    applied: text('applied').notNull(),
    /** '' when no reason was given. */
    reason: text('reason').notNull(),
    requests: integer('requests').notNull(),
  },
  (t) => [primaryKey(t.start, t.server, t.client, t.requested, t.applied, t.reason)],
  SQLITE_WITHOUT_ROWID,
);

/**
 * The same counts without the client, per 5 minutes and per hour: a day's context gap over all clients read ~420k
 * minute rows at 10M events a day (~270 ms), and reads ~7k of these. Reads without a client filter take them, with
 * context_minute for the minutes at a window's edges.
 */
function serverContextColumns() {
  return {
    start: bigint('start').notNull(),
    server: text('server').notNull(),
    requested: text('requested').notNull(),
    /** '' when the response did not say what it applied ("not reported"). */
    applied: text('applied').notNull(),
    /** '' when no reason was given. */
    reason: text('reason').notNull(),
    requests: integer('requests').notNull(),
  };
}

export const contextServer5Min = defineTable(
  'context_server_5min',
  serverContextColumns(),
  (t) => [primaryKey(t.start, t.server, t.requested, t.applied, t.reason)],
  SQLITE_WITHOUT_ROWID,
);

export const contextServerHour = defineTable(
  'context_server_hour',
  serverContextColumns(),
  (t) => [primaryKey(t.start, t.server, t.requested, t.applied, t.reason)],
  SQLITE_WITHOUT_ROWID,
);
