import { type SQL, sql } from 'drizzle-orm';
import { HOUR_MS, MINUTE_MS } from '../../shared/analysis/time-buckets.ts';
import { type Bucket, FAILURE_BUCKETS, isFailure } from '../../shared/classify/types.ts';
import { isSentByServer, SERVER_TO_CLIENT_METHODS } from '../../shared/frames.ts';
import type { EventColumns } from '../event-row.ts';
import type { Count, CounterFamily, Key } from './family.ts';

/**
 * Every counter family the fold keeps, declared once (db/counters/family.ts): what a record is filed under and what
 * it adds, in TypeScript for the fold and in SQL over `events` for the edges of a range, side by side.
 */

/** Everything a stored record's counts are filed by, in every family: what a fold, a join or a replay changes. */
export interface CountedRecord
  extends Pick<
    EventColumns,
    | 'ts'
    | 'server'
    | 'client'
    | 'bucket'
    | 'kind'
    | 'rpcMethod'
    | 'rpcCode'
    | 'httpStatus'
    | 'ctxRequested'
    | 'ctxApplied'
    | 'ctxReason'
    | 'identity'
    | 'avoidable'
    | 'gateReason'
    | 'actProfile'
    | 'era'
  > {
  /** Stored as 0/1 in rows, a boolean in analysis events; null when the event did not say. */
  discoveryRead: number | boolean | null;
  /** 1 (or true) for an MRTR round answering an input request: no send of its identity. */
  continuation: number | boolean;
}

/** What the request counts are filed by: who sent it, what became of it, and its gate verdict. */
export type Filed = Pick<
  CountedRecord,
  'ts' | 'server' | 'client' | 'rpcMethod' | 'bucket' | 'kind' | 'discoveryRead' | 'avoidable' | 'gateReason'
>;

const FIVE_MINUTES = 5 * MINUTE_MS;

/**
 * Who sent a request, as the counts file it: a request the server sent to the client (its sampling request, re-sent
 * after a denial) is the server's conduct, kept under (server, no client) and never blamed on the client.
 */
export const SENDER = sql`CASE WHEN rpc_method IN (${sql.join(
  [...SERVER_TO_CLIENT_METHODS].map((method) => sql`${method}`),
  sql`, `,
)}) THEN NULL ELSE client END`;

const SERVER: Key<{ server: string }> = { column: 'server', type: 'text', of: (r) => r.server, events: sql`server` };
/** The sender, '' for none. */
const CLIENT: Key<Pick<Filed, 'client' | 'rpcMethod'>> = {
  column: 'client',
  type: 'text',
  of: (r) => (isSentByServer(r.rpcMethod) ? '' : (r.client ?? '')),
  events: sql`coalesce(${SENDER}, '')`,
};
const BUCKET: Key<{ bucket: string }> = { column: 'bucket', type: 'text', of: (r) => r.bucket, events: sql`bucket` };
const KIND: Key<{ kind: string }> = { column: 'kind', type: 'text', of: (r) => r.kind, events: sql`kind` };

const REQUESTS: Count<unknown> = { column: 'requests', of: () => 1, events: sql`1` };
const AVOIDABLE: Count<Pick<Filed, 'avoidable'>> = {
  column: 'avoidable',
  of: (r) => Number(r.avoidable),
  events: sql`avoidable`,
  verdict: true,
};

/** Avoidable requests by gate reason, one count each. */
const REASONS = ['after_refusal', 'past_transient_budget', 'before_retry_after', 'identical_after_ambiguous'] as const;
const REASON_COUNTS = REASONS.map(
  (reason): Count<Pick<Filed, 'avoidable' | 'gateReason'>> => ({
    column: reason,
    of: (r) => (r.gateReason === reason ? Number(r.avoidable) : 0),
    events: sql`CASE WHEN gate_reason = ${reason} THEN avoidable ELSE 0 END`,
    verdict: true,
  }),
);
/** Requests a named client sent without having read the discovery document: conduct is a named client's. */
const UNDISCOVERED: Count<Pick<Filed, 'discoveryRead' | 'client' | 'rpcMethod'>> = {
  column: 'undiscovered',
  of: (r) =>
    (r.discoveryRead === false || r.discoveryRead === 0) && r.client !== null && !isSentByServer(r.rpcMethod) ? 1 : 0,
  events: sql`CASE WHEN discovery_read = 0 AND ${SENDER} IS NOT NULL THEN 1 ELSE 0 END`,
};

/** The conduct counters of the families with clients, in their tables' order. */
export const CONDUCT_COLUMNS = [...REASONS, 'undiscovered'] as const;
const REQUEST_COUNTS = [REQUESTS, AVOIDABLE, ...REASON_COUNTS, UNDISCOVERED];

const REQUEST_VERBS = ['stored', 'shadowed', 'reclassified', 'verdict'] as const;

/** Per (server, client): from 5 minutes, a minute level held about one row per event (migration pair_rollups_from_5min). */
export const PAIR_COUNTS: CounterFamily<Filed> = {
  levels: [
    { table: 'rollup_hour', size: HOUR_MS },
    { table: 'rollup_5min', size: FIVE_MINUTES },
  ],
  keys: [SERVER, CLIENT, BUCKET, KIND],
  counts: REQUEST_COUNTS,
  moves: REQUEST_VERBS,
};

export const SERVER_COUNTS: CounterFamily<Filed> = {
  levels: [
    { table: 'rollup_server_hour', size: HOUR_MS },
    { table: 'rollup_server_5min', size: FIVE_MINUTES },
    { table: 'rollup_server_minute', size: MINUTE_MS },
  ],
  keys: [SERVER, BUCKET, KIND],
  counts: REQUEST_COUNTS,
  moves: REQUEST_VERBS,
  of: PAIR_COUNTS,
};

export const CLIENT_COUNTS: CounterFamily<Filed> = {
  levels: [
    { table: 'rollup_client_hour', size: HOUR_MS },
    { table: 'rollup_client_5min', size: FIVE_MINUTES },
    { table: 'rollup_client_minute', size: MINUTE_MS },
  ],
  keys: [CLIENT, BUCKET, KIND],
  counts: REQUEST_COUNTS,
  moves: REQUEST_VERBS,
  of: PAIR_COUNTS,
};

/** Avoidable requests per (server, client): which servers each client hurts most. */
export const AVOIDABLE_COUNTS: CounterFamily<Filed> = {
  levels: [
    { table: 'rollup_avoidable_hour', size: HOUR_MS },
    { table: 'rollup_avoidable_5min', size: FIVE_MINUTES },
    { table: 'rollup_avoidable_minute', size: MINUTE_MS },
  ],
  keys: [SERVER, CLIENT],
  counts: [AVOIDABLE],
  moves: REQUEST_VERBS,
  of: PAIR_COUNTS,
};

/** The whole federation's: a day's chart of all servers reads ~25x fewer rows than from the family per server. */
export const FLEET_COUNTS: CounterFamily<Filed> = {
  levels: [
    { table: 'rollup_fleet_hour', size: HOUR_MS },
    { table: 'rollup_fleet_5min', size: FIVE_MINUTES },
    { table: 'rollup_fleet_minute', size: MINUTE_MS },
  ],
  keys: [BUCKET, KIND],
  counts: [REQUESTS, AVOIDABLE],
  moves: REQUEST_VERBS,
  of: PAIR_COUNTS,
};

/** Counted failures: not ok, not an input request, not a record whose outcome its log does not show. */
const FAILURES = {
  of: (r: { bucket: string }) => isFailure(r.bucket as Bucket),
  events: sql`bucket IN (${sql.join(
    FAILURE_BUCKETS.map((bucket) => sql`${bucket}`),
    sql`, `,
  )})`,
};

type Coded = Pick<CountedRecord, 'ts' | 'server' | 'bucket' | 'kind' | 'rpcCode' | 'httpStatus'>;

/** Counted failures per server, classification and code pair ('' where the answer had no code). */
export const CODE_COUNTS: CounterFamily<Coded> = {
  levels: [
    { table: 'code_hour', size: HOUR_MS },
    { table: 'code_minute', size: MINUTE_MS },
  ],
  keys: [
    SERVER,
    BUCKET,
    KIND,
    {
      column: 'rpc_code',
      type: 'text',
      of: (r) => (r.rpcCode === null ? '' : String(r.rpcCode)),
      events: sql`coalesce(CAST(rpc_code AS text), '')`,
    },
    {
      column: 'http_status',
      type: 'text',
      of: (r) => (r.httpStatus === null ? '' : String(r.httpStatus)),
      events: sql`coalesce(CAST(http_status AS text), '')`,
    },
  ],
  counts: [REQUESTS],
  where: FAILURES,
  moves: ['stored', 'shadowed', 'reclassified'],
};

type Sampled = Pick<CountedRecord, 'ts' | 'server' | 'client' | 'ctxRequested' | 'ctxApplied' | 'ctxReason'>;

const CONTEXT_SCOPES: Key<Sampled>[] = [
  { column: 'requested', type: 'text', of: (r) => r.ctxRequested ?? '', events: sql`ctx_requested` },
  { column: 'applied', type: 'text', of: (r) => r.ctxApplied ?? '', events: sql`coalesce(ctx_applied, '')` },
  { column: 'reason', type: 'text', of: (r) => r.ctxReason ?? '', events: sql`coalesce(ctx_reason, '')` },
];

/**
 * Sampling requests (DOMAIN.md section 7) per minute, server, client (the record's, as sent) and requested and
 * applied scope and reason ('' for not reported, none given). Sampling is not a gate matter, nor does it follow the
 * bucket.
 */
export const CONTEXT_COUNTS: CounterFamily<Sampled> = {
  levels: [{ table: 'context_minute', size: MINUTE_MS }],
  keys: [
    SERVER,
    { column: 'client', type: 'text', of: (r) => r.client ?? '', events: sql`coalesce(client, '')` },
    ...CONTEXT_SCOPES,
  ],
  counts: [REQUESTS],
  where: { of: (r) => r.ctxRequested !== null, events: sql`ctx_requested IS NOT NULL` },
  moves: ['stored', 'shadowed'],
};

/** The same without the client, from 5 minutes; its minutes are the per-client ones. */
export const CONTEXT_SERVER_COUNTS: CounterFamily<Sampled> = {
  levels: [
    { table: 'context_server_hour', size: HOUR_MS },
    { table: 'context_server_5min', size: FIVE_MINUTES },
  ],
  keys: [SERVER, ...CONTEXT_SCOPES],
  counts: [REQUESTS],
  where: CONTEXT_COUNTS.where,
  moves: CONTEXT_COUNTS.moves,
  of: CONTEXT_COUNTS,
};

/**
 * Failures per server and packed pair of actionability profiles (migration actionability, ADR 13). A profile follows
 * from the event's frames and HTTP facts alone, never from a server's discovery document or overrides, so a
 * reclassification leaves it where it is.
 */
export const ACTIONABILITY_COUNTS: CounterFamily<Pick<CountedRecord, 'ts' | 'server' | 'actProfile'>> = {
  levels: [
    { table: 'actionability_hour', size: HOUR_MS },
    { table: 'actionability_minute', size: MINUTE_MS },
  ],
  keys: [SERVER, { column: 'profile', type: 'integer', of: (r) => r.actProfile ?? 0, events: sql`act_profile` }],
  counts: [{ column: 'failures', of: () => 1, events: sql`1` }],
  where: { of: (r) => r.actProfile !== null, events: sql`act_profile IS NOT NULL` },
  moves: ['stored', 'shadowed'],
};

/** Counted failures per server and JSON-RPC method ('' for a record without one): which calls of a server fail. */
export const METHOD_FAILURE_COUNTS: CounterFamily<Pick<CountedRecord, 'ts' | 'server' | 'rpcMethod' | 'bucket'>> = {
  levels: [
    { table: 'method_failure_hour', size: HOUR_MS },
    { table: 'method_failure_minute', size: MINUTE_MS },
  ],
  keys: [
    SERVER,
    { column: 'method', type: 'text', of: (r) => r.rpcMethod ?? '', events: sql`coalesce(rpc_method, '')` },
  ],
  counts: [{ column: 'failures', of: () => 1, events: sql`1` }],
  where: FAILURES,
  moves: ['stored', 'shadowed', 'reclassified'],
};

/** What a counted record is filed by in the era counts, as its row keeps it. */
export type EraCounted = Pick<CountedRecord, 'ts' | 'server' | 'client' | 'rpcMethod' | 'bucket' | 'kind' | 'era'> & {
  /** 1 (or true) for an MRTR round that answers an input request. */
  continuation: number | boolean;
};

const continues = (r: EraCounted) => r.continuation === 1 || r.continuation === true;
/** A call's first round answered `input_required`: a call that asked for input (DOMAIN.md section 10). */
const asks = (r: EraCounted) => r.bucket === 'pending' && !continues(r);
const ASKS = sql`bucket = 'pending' AND continuation = 0`;
const flag = (of: (r: EraCounted) => boolean, where: SQL) => ({
  of: (r: EraCounted) => (of(r) ? 1 : 0),
  events: sql`CASE WHEN ${where} THEN 1 ELSE 0 END`,
});

/**
 * The counts, declared once: what one counted record adds to each (migration era_counts filled the tables with the
 * same conditions). A round's rounds count is the call's: its asking first round, and each continuation but one
 * whose `requestState` the server rejected (`invalid_request_state`: it continues no call the server knows, like a
 * forged state).
 */
const ERA_COUNTS: readonly Count<EraCounted>[] = [
  { column: 'requests', of: () => 1, events: sql`1` },
  { column: 'legacy', ...flag((r) => r.kind === 'era_legacy', sql`kind = 'era_legacy'`) },
  { column: 'pending', ...flag((r) => r.bucket === 'pending', sql`bucket = 'pending'`) },
  { column: 'continuations', ...flag(continues, sql`continuation = 1`) },
  { column: 'calls', ...flag(asks, ASKS) },
  {
    column: 'rounds',
    ...flag(
      (r) => asks(r) || (continues(r) && r.kind !== 'invalid_request_state'),
      sql`(${ASKS}) OR (continuation = 1 AND kind <> 'invalid_request_state')`,
    ),
  },
];
export const ERA_COUNT_COLUMNS = ['requests', 'legacy', 'pending', 'continuations', 'calls', 'rounds'] as const;
export type EraCountColumn = (typeof ERA_COUNT_COLUMNS)[number];

const ERA: Key<EraCounted> = { column: 'era', type: 'text', of: (r) => r.era ?? '', events: sql`coalesce(era, '')` };
const ERA_VERBS = ['stored', 'shadowed', 'reclassified'] as const;

/**
 * Requests per era, and MCP 2026-07-28's input requests among them, per server: a server's page reads its own rows.
 * They move wherever what they are filed by changes: stored, shadowed by the client's record, reclassified (a
 * `requestState` rejection can be re-mapped by an override), the era read again from the line.
 */
export const ERA_SERVER_COUNTS: CounterFamily<EraCounted> = {
  levels: [
    { table: 'era_server_hour', size: HOUR_MS },
    { table: 'era_server_minute', size: MINUTE_MS },
  ],
  keys: [SERVER, ERA],
  counts: ERA_COUNTS,
  moves: ERA_VERBS,
};

/** The same per client that sent the request ('' for a request the server sent), for the Clients screen. */
export const ERA_CLIENT_COUNTS: CounterFamily<EraCounted> = {
  levels: [
    { table: 'era_client_hour', size: HOUR_MS },
    { table: 'era_client_minute', size: MINUTE_MS },
  ],
  keys: [CLIENT, ERA],
  counts: ERA_COUNTS,
  moves: ERA_VERBS,
};

/** The families the fold moves, each with those kept of it. */
export const FOLDED_FAMILIES: readonly CounterFamily<CountedRecord>[] = [
  PAIR_COUNTS,
  SERVER_COUNTS,
  CLIENT_COUNTS,
  AVOIDABLE_COUNTS,
  FLEET_COUNTS,
  CODE_COUNTS,
  CONTEXT_COUNTS,
  CONTEXT_SERVER_COUNTS,
  ACTIONABILITY_COUNTS,
  METHOD_FAILURE_COUNTS,
  ERA_SERVER_COUNTS,
  ERA_CLIENT_COUNTS,
];
