import { bigint, defineTable, integer, primaryKey, SQLITE_WITHOUT_ROWID, text } from './tables.ts';

/**
 * Counted requests per time bucket, era and server (or client), and the MCP 2026-07-28 input requests among them
 * (DOMAIN.md section 10), kept at ingest (declared in db/counters/families.ts): which clients still speak 2025 and which servers
 * answer only 2025 read a window's counts, not its events. An hour level for the middle of a window, a minute level
 * for its edges.
 */
function eraCounts() {
  return {
    /** Epoch ms of the bucket's start, aligned to the epoch. */
    start: bigint('start').notNull(),
    /** `2025`, `2026`, or '' where nothing tells (A2A, a proxy line without the headers). */
    era: text('era').notNull(),
    requests: integer('requests').notNull(),
    /** Era probes answered as a 2025-only server answers them (kind `era_legacy`). */
    legacy: integer('legacy').notNull(),
    /** Rounds answered `input_required` (bucket `pending`). */
    pending: integer('pending').notNull(),
    /** Rounds that answer an input request (events.continuation). */
    continuations: integer('continuations').notNull(),
    /** Calls that asked for input: their first round answered `input_required`. */
    calls: integer('calls').notNull(),
    /** The rounds of those calls: the first, and each continuation the server took as one of a call. */
    rounds: integer('rounds').notNull(),
  };
}

/** Per server: one server's window reads its own rows first (the page of a server). */
function perServer() {
  return { server: text('server').notNull(), ...eraCounts() };
}

/** Per client, its sender's: '' for requests a server sent, as the rollups file them. */
function perClient() {
  return { client: text('client').notNull(), ...eraCounts() };
}

export const eraServerMinute = defineTable(
  'era_server_minute',
  perServer(),
  (t) => [primaryKey(t.server, t.start, t.era)],
  SQLITE_WITHOUT_ROWID,
);

export const eraServerHour = defineTable(
  'era_server_hour',
  perServer(),
  (t) => [primaryKey(t.server, t.start, t.era)],
  SQLITE_WITHOUT_ROWID,
);

// Every client's window at once (the Clients screen): the time first.
export const eraClientMinute = defineTable(
  'era_client_minute',
  perClient(),
  (t) => [primaryKey(t.start, t.client, t.era)],
  SQLITE_WITHOUT_ROWID,
);

export const eraClientHour = defineTable(
  'era_client_hour',
  perClient(),
  (t) => [primaryKey(t.start, t.client, t.era)],
  SQLITE_WITHOUT_ROWID,
);
