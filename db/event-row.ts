import { packLines } from './body-codec.ts';
import { eventDay } from './event-days.ts';
import { storedDigest } from './stored-identity.ts';

/**
 * The columns of the events table as TypeScript reads them (snake_case lives only in SQL): the one declaration of
 * the stored row. Every narrower row a query reads is a `Pick` of it, and analysisEventOfRow (db/queries/analysis.ts)
 * is the one mapping to the pure analyses' AnalysisEvent.
 */
export interface EventColumns {
  /** Arrival order. */
  seq: number;
  eventId: string;
  ts: number;
  source: string;
  client: string | null;
  server: string;
  session: string | null;
  protocol: string;
  rpcMethod: string | null;
  /** What the method names: a tool call's tool, a prompt, a resource's URI (shared/frames.ts rpcNameOf). */
  rpcName: string | null;
  /** The MCP era of the request, `2025` or `2026` (shared/era.ts); null where the record cannot tell. */
  era: string | null;
  /** The protocol version the request named (shared/era.ts protocolVersionOf). */
  protocolVersion: string | null;
  /** 1 for an MRTR round that answers an input request (shared/era.ts isContinuation). */
  continuation: number;
  httpMethod: string | null;
  httpPath: string | null;
  httpStatus: number | null;
  rpcCode: number | null;
  latencyMs: number | null;
  timeout: number;
  discoveryRead: number | null;
  retryAfter: number | null;
  identity: string | null;
  correlation: string | null;
  requestId: string | null;
  /** The event id of the other record of the same request, once joined (set by the fold, never at insert). */
  partner: string | null;
  counted: number;
  bucket: string;
  kind: string;
  rule: string;
  evidence: string;
  waitUntil: number | null;
  ctxRequested: string | null;
  ctxApplied: string | null;
  ctxReason: string | null;
  avoidable: number;
  gateReason: string | null;
  /** Which block made it avoidable (set by the gate, never at insert). */
  blockedBy: string | null;
  /** A failure's two actionability profiles, packed (shared/actionability packViews); null when it did not fail. */
  actProfile: number | null;
  /** The log format the record was read from (`claude-desktop`, `mcp-remote`, ...); null for native NDJSON. */
  sourceFormat: string | null;
  /** The frames the record carries: 1 its request, 2 its answer; null for a record stored before migration frames. */
  frames: number | null;
}

/** One row as the ingest path builds it: what insert writes, and the line it came from. */
export interface EventRow extends Omit<EventColumns, 'seq' | 'partner' | 'blockedBy'> {
  /** The line as it arrived: the stores keep it in event_bodies (db/body-codec.ts). */
  body: string;
}

/**
 * Column order of the hot insert statements on both engines, which add `identity` (the digest, PackedRows), then
 * body_block and body_line.
 */
export const EVENT_COLUMNS = [
  ['eventId', 'event_id'],
  ['ts', 'ts'],
  ['source', 'source'],
  ['client', 'client'],
  ['server', 'server'],
  ['session', 'session'],
  ['protocol', 'protocol'],
  ['rpcMethod', 'rpc_method'],
  ['rpcName', 'rpc_name'],
  ['era', 'era'],
  ['protocolVersion', 'protocol_version'],
  ['continuation', 'continuation'],
  ['httpMethod', 'http_method'],
  ['httpPath', 'http_path'],
  ['httpStatus', 'http_status'],
  ['rpcCode', 'rpc_code'],
  ['latencyMs', 'latency_ms'],
  ['timeout', 'timeout'],
  ['discoveryRead', 'discovery_read'],
  ['retryAfter', 'retry_after'],
  ['correlation', 'correlation'],
  ['requestId', 'request_id'],
  ['counted', 'counted'],
  ['bucket', 'bucket'],
  ['kind', 'kind'],
  ['rule', 'rule'],
  ['evidence', 'evidence'],
  ['waitUntil', 'wait_until'],
  ['ctxRequested', 'ctx_requested'],
  ['ctxApplied', 'ctx_applied'],
  ['ctxReason', 'ctx_reason'],
  ['avoidable', 'avoidable'],
  ['gateReason', 'gate_reason'],
  ['actProfile', 'act_profile'],
  ['sourceFormat', 'source_format'],
  ['frames', 'frames'],
] as const satisfies readonly (readonly [keyof EventRow, string])[];

/**
 * Writes a row's EVENT_COLUMNS values, in that order, into `values` from `at` on: what both stores' hot inserts send.
 * Compiled from the column list: a loop of `row[field]` is one keyed load site for every column, which V8 cannot
 * specialise (megamorphic), and cost ~2.3 us a row; compiled, each is a plain property read (~0.3 us a row). The
 * names are EVENT_COLUMNS' own field identifiers, never input.
 */
export const putEventValues = new Function(
  'row',
  'values',
  'at',
  EVENT_COLUMNS.map(([field], k) => `values[at + ${k}] = row.${field};`).join('\n'),
) as (row: EventRow, values: unknown[], at: number) => void;

/** Rows ready for the hot insert, their lines packed into blocks (db/body-codec.ts), one day's lines a block. */
export interface PackedRows {
  rows: readonly EventRow[];
  blocks: Buffer[];
  /** Row i's line is line `lineOf[i]` of block `blockOf[i]`. */
  blockOf: number[];
  lineOf: number[];
  /** Block b holds lines of day `blockDays[b]` (db/event-days.ts) only. */
  blockDays: number[];
  /** Row i's identity as stored: its digest in hex (db/stored-identity.ts), the server being the row's. */
  digests: (string | null)[];
}

/**
 * Packs the rows' lines and takes their identities' digests. CPU work only, so the ingest path does it before its
 * transaction: inside, it would hold up the one writer.
 */
export function packRows(rows: readonly EventRow[]): PackedRows {
  const days = rows.map((row) => eventDay(row.ts));
  const { blocks, blockOf, lineOf } = packLines(
    rows.map((row) => row.body),
    days,
  );
  const blockDays = new Array<number>(blocks.length);
  blockOf.forEach((block, row) => {
    blockDays[block] = days[row] as number;
  });
  return {
    rows,
    blocks,
    blockOf,
    lineOf,
    blockDays,
    digests: rows.map((row) => storedDigest(row.identity, row.server)),
  };
}

/**
 * What tells one stored event from another: the dedupe key of `events` (`event_id`, `ts`, `server`). The day
 * partitions of PostgreSQL need the time in every unique key, a store distributed by server the server
 * (docs/adr/0009-retention.md, docs/adr/0014-distribution-by-server.md); a re-sent event has all three the same.
 */
export function storedKey(row: { eventId: string; ts: number; server: string }): string {
  return `${row.ts}\u0000${row.server}\u0000${row.eventId}`;
}
