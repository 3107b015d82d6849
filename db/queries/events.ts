import { type SQL, sql } from 'drizzle-orm';
import type { EventColumns } from '../event-row.ts';
import type { SqlRunner } from '../runner.ts';
import { identityText } from '../stored-identity.ts';
import { BODY_COLUMNS, EVENTS_WITH_BODIES, type WithBlock, withBodies } from './bodies.ts';

export interface EventFilter {
  server?: string;
  client?: string;
  bucket?: string;
  kind?: string;
  /** Only failures (any bucket but `ok`). */
  failed?: boolean;
  /** Only failures with this control-view actionability profile (shared/actionability, 0..63). */
  controlProfile?: number;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
}

/** Position after which the next page starts: newest first, ties broken by arrival order. */
export interface EventCursor {
  ts: number;
  seq: number;
}

/** An event as the events list and the event view read it: its columns and the line it came from. */
export interface StoredEventRow
  extends Omit<
    EventColumns,
    | 'timeout'
    | 'discoveryRead'
    | 'retryAfter'
    | 'correlation'
    | 'waitUntil'
    | 'ctxRequested'
    | 'ctxApplied'
    | 'ctxReason'
  > {
  body: string;
}

export function filterConditions(filter: EventFilter): SQL[] {
  const conditions: SQL[] = [];
  if (filter.client !== undefined) {
    conditions.push(sql`client = ${filter.client}`);
    if (filter.server !== undefined) conditions.push(serverBesideClient(filter.server));
  } else if (filter.server !== undefined) conditions.push(sql`server = ${filter.server}`);
  if (filter.bucket !== undefined) conditions.push(sql`bucket = ${filter.bucket}`);
  if (filter.kind !== undefined) conditions.push(sql`kind = ${filter.kind}`);
  // `bucket <> 'ok'` as events_failed_idx has it, so that the index serves; an input request is no failure either.
  if (filter.failed === true) conditions.push(sql`bucket <> 'ok'`, sql`bucket <> 'pending'`);
  // The control view is the packed profile's low six bits (shared/actionability packViews).
  if (filter.controlProfile !== undefined) conditions.push(sql`act_profile % 64 = ${filter.controlProfile}`);
  if (filter.from !== undefined) conditions.push(sql`ts >= ${filter.from}`);
  if (filter.to !== undefined) conditions.push(sql`ts < ${filter.to}`);
  return conditions;
}

/**
 * The server of a read that also names the client, compared as an expression that no index serves. SQLite keeps no
 * statistics here, and between (server, ts) and (client, ts, server) it took the first, which fetches every row of
 * the server's other clients; the client's index checks the server in the index entry itself (a 3-hour storm's
 * attempts: 31k rows fetched to keep 1.2k, ~56 ms, against ~12 ms).
 */
export function serverBesideClient(server: string | SQL): SQL {
  return sql`server || '' = ${server}`;
}

export function whereClause(conditions: SQL[]): SQL {
  return conditions.length === 0 ? sql`` : sql`WHERE ${sql.join(conditions, sql` AND `)}`;
}

function eventColumns(db: SqlRunner): SQL {
  return sql`seq, event_id AS "eventId", ts, source, client, server, session, protocol,
  rpc_method AS "rpcMethod", http_method AS "httpMethod", http_path AS "httpPath", http_status AS "httpStatus",
  rpc_code AS "rpcCode", latency_ms AS "latencyMs", ${identityText(db, 'events')} AS identity, counted, bucket, kind,
  rule, evidence, avoidable, gate_reason AS "gateReason", blocked_by AS "blockedBy", request_id AS "requestId",
  partner, act_profile AS "actProfile", era, protocol_version AS "protocolVersion", continuation, ${BODY_COLUMNS}`;
}

export async function getEvent(db: SqlRunner, eventId: string): Promise<StoredEventRow | null> {
  const rows = await db.all<WithBlock<StoredEventRow>>(
    sql`SELECT ${eventColumns(db)} FROM ${EVENTS_WITH_BODIES} WHERE event_id = ${eventId}`,
  );
  return withBodies(rows)[0] ?? null;
}

export async function listEvents(
  db: SqlRunner,
  filter: EventFilter,
  cursor: EventCursor | null,
  limit: number,
): Promise<StoredEventRow[]> {
  const conditions = filterConditions(filter);
  if (cursor) conditions.push(sql`(ts < ${cursor.ts} OR (ts = ${cursor.ts} AND seq < ${cursor.seq}))`);
  const rows = await db.all<WithBlock<StoredEventRow>>(sql`SELECT ${eventColumns(db)}
    FROM ${EVENTS_WITH_BODIES} ${whereClause(conditions)} ORDER BY ts DESC, seq DESC LIMIT ${limit}`);
  return withBodies(rows);
}

/** The first and last event times in the store, null when it holds none: two seeks in events_ts_idx. */
export async function storedExtent(db: SqlRunner): Promise<{ first: number; last: number } | null> {
  const rows = await db.all<{ first: number | string | null; last: number | string | null }>(
    sql`SELECT (SELECT min(ts) FROM events) AS first, (SELECT max(ts) FROM events) AS last`,
  );
  const { first, last } = rows[0] ?? { first: null, last: null };
  return first === null || last === null ? null : { first: Number(first), last: Number(last) };
}
