import { sql } from 'drizzle-orm';
import { bigint, bytes, defineTable, index, primaryKey, text } from './tables.ts';

/**
 * MCP 2026-07-28's input requests (DOMAIN.md section 10): what a server asked of a client inside a counted round's
 * `input_required` answer (an `elicitation/create`, a `sampling/createMessage`, ...), one row each. The server is their
 * sender: they are sends of their identity as a 2025 server's sampling request is (db/counters/identities.ts) and its
 * conduct. Written by the fold for the counted rounds it folds, taken out when a round is shadowed
 * (api/services/input-requests.ts), kept as long as the events.
 */
export const inputRequests = defineTable(
  'input_requests',
  {
    /** The round whose answer asked: its event id, time and server, the events' dedupe key. */
    eventId: text('event_id').notNull(),
    ts: bigint('ts').notNull(),
    server: text('server').notNull(),
    /** The name the server gave the request in `inputRequests`. */
    inputKey: text('input_key').notNull(),
    /** The client the round was sent by: the one asked. */
    client: text('client'),
    method: text('method').notNull(),
    /** Section 5's digest of what was asked (db/stored-identity.ts), as `events.identity`; the server is this row's. */
    identity: bytes('identity').notNull(),
  },
  (t) => [
    primaryKey(t.eventId, t.ts, t.server, t.inputKey),
    // An identity's sends, as events_identity_server_ts_idx has them: every identity read unions these in.
    index('input_requests_identity_idx').on(t.identity, t.server, t.ts),
    // A server's requests in a window: its conduct on the server page.
    index('input_requests_server_ts_idx').on(t.server, t.ts),
    // A client's sends, for the ranking narrowed to one client.
    index('input_requests_client_ts_idx').on(t.client, t.ts).where(sql`${t.client} IS NOT NULL`),
  ],
);
