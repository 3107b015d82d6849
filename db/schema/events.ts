import { sql } from 'drizzle-orm';
import { bigint, bytes, defineTable, double, index, integer, serial, smallint, text, uniqueIndex } from './tables.ts';

/** One observed request (one log line) with its classification. */
export const events = defineTable(
  'events',
  {
    /** Arrival order; the tie-breaker of cursor pagination. */
    seq: serial('seq'),
    /** The producer's `id`, or `h:` + a digest of the event when it had none, so a re-sent event is a duplicate. */
    eventId: text('event_id').notNull(),
    /** Epoch milliseconds. */
    ts: bigint('ts').notNull(),
    source: text('source').notNull(),
    client: text('client'),
    server: text('server').notNull(),
    session: text('session'),
    protocol: text('protocol').notNull(),
    /** JSON-RPC method of the request frame. */
    rpcMethod: text('rpc_method'),
    /** What the method names: a tool call's tool, a prompt, a resource's URI (`Mcp-Name`). */
    rpcName: text('rpc_name'),
    /** The MCP era of the request, `2025` or `2026` (shared/era.ts); null where the record cannot tell. */
    era: text('era'),
    /** The protocol version the request named: its `_meta`, `initialize`'s, the `MCP-Protocol-Version` header. */
    protocolVersion: text('protocol_version'),
    /** 1 for an MRTR round that answers an input request: part of its call, never a re-presentation. */
    continuation: smallint('continuation').notNull().default(0),
    httpMethod: text('http_method'),
    httpPath: text('http_path'),
    httpStatus: integer('http_status'),
    /** JSON-RPC error code of the response frame. */
    rpcCode: integer('rpc_code'),
    latencyMs: double('latency_ms'),
    timeout: smallint('timeout').notNull(),
    discoveryRead: smallint('discovery_read'),
    retryAfter: double('retry_after'),
    /**
     * The request identity's 128-bit digest (DOMAIN.md section 5). The identity the API shows is `server:` + its hex,
     * the server being this row's: db/stored-identity.ts converts, in both directions.
     */
    identity: bytes('identity'),
    /** Joins a client's record of a request to a proxy's (traceparent, else session + JSON-RPC id). */
    correlation: text('correlation'),
    /** The request's `X-Request-Id` (`http.requestId`): the surest join of a client's record to a proxy's. */
    requestId: text('request_id'),
    /** The `event_id` of the other record of the same request (client ↔ proxy), once the two are joined. */
    partner: text('partner'),
    /** 0 for a proxy record whose request a client also logged: storage keeps both, counts take the client's. */
    counted: smallint('counted').notNull(),
    bucket: text('bucket').notNull(),
    kind: text('kind').notNull(),
    rule: text('rule').notNull(),
    evidence: text('evidence').notNull(),
    /**
     * A failure's actionability profiles (shared/actionability packViews): the control view in the low six bits, the
     * transport view above, the content view above that, then the hidden-failure and hidden-throttle flags (bits 18
     * and 19). Null for an event that did not fail, hidden or not, and for one stored before migration actionability
     * until api/services/actionability-backfill.ts has read its line (ADR 13, ADR 17).
     */
    actProfile: integer('act_profile'),
    /** For a throttled answer: epoch ms before which the client should not send again (Retry-After / resetsAt). */
    waitUntil: bigint('wait_until'),
    /** Sampling context (DOMAIN.md section 7): requested scope, applied scope (null: not reported), reason. */
    ctxRequested: text('ctx_requested'),
    ctxApplied: text('ctx_applied'),
    ctxReason: text('ctx_reason'),
    /** 1 when a client following seed 000's gate would never have sent this request. */
    avoidable: smallint('avoidable').notNull().default(0),
    /** Why it was avoidable (shared/analysis/gate-types.ts GateReason). */
    gateReason: text('gate_reason'),
    /** Which block made it avoidable (shared/analysis/gate-types.ts GateBlock); null when needed or throttled. */
    blockedBy: text('blocked_by'),
    /** The event as it arrived (one NDJSON line, frames untouched) is line body_line of event_bodies row body_block. */
    bodyBlock: bigint('body_block').notNull(),
    /** The log format the record was read from (`claude-desktop`, `mcp-remote`, ...); null for native NDJSON. */
    sourceFormat: text('source_format'),
    /** The frames the record carries: 1 its request, 2 its answer (both: 3); null for a record stored before. */
    frames: smallint('frames'),
    bodyLine: smallint('body_line').notNull(),
  },
  (t) => [
    // The dedupe key: a re-sent event has the same id, time and server. The time is in it because PostgreSQL keeps
    // events in day partitions (ADR 9), the server because a distributed store keeps each server's rows on one
    // node (ADR 14); every unique key of a partitioned or distributed table must hold those columns.
    uniqueIndex('events_event_id_uq').on(t.eventId, t.ts, t.server),
    index('events_server_ts_idx').on(t.server, t.ts),
    // The server rides along so that a (client, server) read (a storm's attempts, a partition's replay) skips the
    // client's other servers in the index rather than row by row: a 3-hour storm read 31k rows to keep 1.2k.
    index('events_client_ts_server_idx').on(t.client, t.ts, t.server),
    index('events_ts_idx').on(t.ts),
    // One identity's counted sends in a window: re-presentation counts and the alarm read this, not the whole
    // window. Only counted sends (every identity read asks for those), so that counting them needs no row. The digest
    // alone is no identity (a `tools/list` without params has one digest on every server), so the server follows it.
    // Digest first: every read names both (an identity's sends, the alarm list's, the ranking's contenders), the
    // digest is what tells identities apart, and no read of a server alone can take this index over
    // events_server_ts_idx, which has its window in order.
    // The continuation flag rides along: an MRTR round that answers an input request is part of its call, no send
    // (DOMAIN.md section 10), and counting sends still reads the index alone. The audit reads every round.
    index('events_identity_server_ts_idx')
      .on(t.identity, t.server, t.ts, t.continuation)
      .where(sql`${t.identity} IS NOT NULL AND ${t.counted} = 1`),
    // Split by source: joining a client's record to a proxy's probes the proxy side for every client request, and
    // proxy records that carry a correlation are few, so that probe stays in a small index.
    index('events_proxy_correlation_idx')
      .on(t.correlation)
      .where(sql`${t.source} = 'proxy' AND ${t.correlation} IS NOT NULL`),
    index('events_client_correlation_idx')
      .on(t.correlation)
      .where(sql`${t.source} = 'client' AND ${t.correlation} IS NOT NULL`),
    index('events_request_id_idx').on(t.requestId).where(sql`${t.requestId} IS NOT NULL`),
    // The proxy records still waiting for their client's: every client batch looks here for a partner near its
    // times, and a store without access logs keeps this index empty, so that look costs nothing.
    index('events_proxy_unjoined_idx')
      .on(t.server, t.ts)
      .where(sql`${t.source} = 'proxy' AND ${t.partner} IS NULL AND ${t.counted} = 1`),
    index('events_failed_idx').on(t.server, t.seq).where(sql`${t.bucket} <> 'ok'`),
    // A server's failed requests in time order: the failure list on the Actionability screen and its count read them
    // here alone, whatever share of the server's traffic failed (on (server, ts) a healthy server's day was read row by
    // row for its few failures). Counted only: a request is listed once, as the record it is counted by.
    index('events_failed_ts_idx').on(t.server, t.ts).where(sql`${t.bucket} <> 'ok' AND ${t.counted} = 1`),
  ],
);
