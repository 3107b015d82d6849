import { type SQL, sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { identityText, storedDigest } from '../stored-identity.ts';
import { LINE_PLACE, type WithBlock, withBodies } from './bodies.ts';
import { queued } from './fold-queue.ts';
import { bytesFromHex, listTable } from './lists.ts';

export interface FailedEventRow {
  seq: number;
  /** 1 while still queued for its fold (db/queries/fold-queue.ts `queued`). */
  queued: number;
  rpcMethod: string | null;
  ts: number;
  server: string;
  client: string | null;
  identity: string | null;
  counted: number;
  avoidable: number;
  gateReason: string | null;
  discoveryRead: number | null;
  rpcCode: number | null;
  httpStatus: number | null;
  era: string | null;
  continuation: number;
  body: string;
  bucket: string;
  kind: string;
  rule: string;
  evidence: string;
}

/** One page of a server's failed events, in arrival order (the partial index events_failed_idx serves it). */
export async function failedEventsPage(
  db: SqlRunner,
  server: string,
  afterSeq: number,
  limit: number,
): Promise<FailedEventRow[]> {
  const rows = await db.all<WithBlock<FailedEventRow>>(sql`SELECT seq, ts, server, client, rpc_method AS "rpcMethod",
      ${identityText(db, 'events')} AS identity, counted, avoidable,
      gate_reason AS "gateReason", discovery_read AS "discoveryRead", rpc_code AS "rpcCode",
      http_status AS "httpStatus", era, continuation, bucket, kind, rule, evidence, ${queued(db)} AS queued, ${LINE_PLACE}
    FROM events
    WHERE server = ${server} AND bucket <> 'ok' AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`);
  return withBodies(db, rows);
}

export interface Reclassified {
  seq: number;
  /**
   * The event's time and server beside its seq: PostgreSQL then looks in one day partition (ADR 9), and a store
   * distributed by server on one node (ADR 14).
   */
  ts: number;
  server: string;
  bucket: string;
  kind: string;
  rule: string;
  evidence: string;
  /** Follows the bucket: a throttle's wait (shared/analysis/from-event.ts waitUntilFor). */
  waitUntil: number | null;
}

export async function updateClassification(db: SqlRunner, row: Reclassified): Promise<void> {
  await db.run(sql`UPDATE events SET bucket = ${row.bucket}, kind = ${row.kind}, rule = ${row.rule},
    evidence = ${row.evidence}, wait_until = ${row.waitUntil} WHERE seq = ${row.seq} AND ts = ${row.ts} AND server = ${row.server}`);
}

/** What a shadowed proxy record's counts came from (db/queries/request-join.ts writePairs returns them): db/counters/families.ts CountedRecord. */
export function shadowedColumns(db: SqlRunner): SQL {
  return sql`ts, client, server, rpc_method AS "rpcMethod", ${identityText(db, 'events')} AS identity, bucket, kind,
  avoidable, gate_reason AS "gateReason", discovery_read AS "discoveryRead", ctx_requested AS "ctxRequested",
  ctx_applied AS "ctxApplied", ctx_reason AS "ctxReason", rpc_code AS "rpcCode", http_status AS "httpStatus",
  act_profile AS "actProfile", era, continuation`;
}

/** What a stored event's identity and lapse were derived from, as `factsPage` reads it. */
export interface FactsRow {
  seq: number;
  ts: number;
  server: string;
  client: string | null;
  rpcMethod: string | null;
  bucket: string;
  kind: string;
  discoveryRead: number | null;
  avoidable: number;
  gateReason: string | null;
  counted: number;
  identity: string | null;
  waitUntil: number | null;
  body: string;
}

/**
 * One page, in arrival order, of the events an older release filed differently: refusals and throttled answers (their
 * lapse), A2A message sends (their identity without `messageId`), requests a server sent (whose conduct they are).
 */
export async function factsPage(
  db: SqlRunner,
  methods: { a2aMessages: readonly string[]; serverSent: readonly string[] },
  afterSeq: number,
  limit: number,
): Promise<FactsRow[]> {
  const rows = await db.all<WithBlock<FactsRow>>(sql`SELECT seq, ts, server, client, rpc_method AS "rpcMethod",
      bucket, kind, discovery_read AS "discoveryRead", avoidable, gate_reason AS "gateReason", counted,
      ${identityText(db, 'events')} AS identity, wait_until AS "waitUntil", ${LINE_PLACE}
    FROM events
    WHERE seq > ${afterSeq} AND (bucket IN ('refusal', 'throttled')
      OR (protocol = 'a2a' AND rpc_method IN ${listTable(db, methods.a2aMessages)})
      OR rpc_method IN ${listTable(db, methods.serverSent)})
    ORDER BY seq LIMIT ${limit}`);
  return withBodies(db, rows);
}

/** Files a stored event's identity (of a request to its `server`) and lapse anew. */
export async function updateFacts(
  db: SqlRunner,
  row: { seq: number; ts: number; server: string; identity: string | null; waitUntil: number | null },
): Promise<void> {
  const digest = bytesFromHex(db, sql`${storedDigest(row.identity, row.server)}`);
  await db.run(sql`UPDATE events SET identity = ${digest}, wait_until = ${row.waitUntil}
    WHERE seq = ${row.seq} AND ts = ${row.ts} AND server = ${row.server}`);
}

/** A stored MCP event and its line, as `unreadRequestsPage` reads it, with what its era counts are filed by. */
export interface UnreadRequestRow {
  seq: number;
  ts: number;
  server: string;
  client: string | null;
  rpcMethod: string | null;
  bucket: string;
  kind: string;
  era: string | null;
  continuation: number;
  counted: number;
  /** The request identity (`server:` + hex), as the identity hours count its sends. */
  identity: string | null;
  /** 1 while still queued for its fold (db/queries/fold-queue.ts `queued`). */
  queued: number;
  body: string;
}

/** One page, in arrival order, of the MCP events after `afterSeq`, with their lines. */
export async function unreadRequestsPage(db: SqlRunner, afterSeq: number, limit: number): Promise<UnreadRequestRow[]> {
  const rows = await db.all<WithBlock<UnreadRequestRow>>(sql`SELECT seq, ts, server, client,
      rpc_method AS "rpcMethod", bucket, kind, era, continuation, counted, ${identityText(db, 'events')} AS identity,
      ${queued(db)} AS queued, ${LINE_PLACE}
    FROM events
    WHERE seq > ${afterSeq} AND protocol = 'mcp'
    ORDER BY seq LIMIT ${limit}`);
  return (await withBodies(db, rows)).map((row) => ({ ...row, seq: Number(row.seq), ts: Number(row.ts) }));
}

/** What a request says of itself (shared/era.ts, shared/frames.ts rpcNameOf), filed for one stored event. */
export interface RequestFacts {
  seq: number;
  ts: number;
  server: string;
  rpcName: string | null;
  era: string | null;
  protocolVersion: string | null;
  continuation: number;
}

export async function writeRequestFacts(db: SqlRunner, rows: readonly RequestFacts[]): Promise<void> {
  for (const row of rows) {
    await db.run(sql`UPDATE events SET rpc_name = ${row.rpcName}, era = ${row.era},
        protocol_version = ${row.protocolVersion}, continuation = ${row.continuation}
      WHERE seq = ${row.seq} AND ts = ${row.ts} AND server = ${row.server}`);
  }
}
