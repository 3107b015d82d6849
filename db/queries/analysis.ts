import { type SQL, sql } from 'drizzle-orm';
import type { AnalysisEvent, ContextScope } from '../../shared/analysis/types.ts';
import type { Bucket } from '../../shared/classify/types.ts';
import type { EventColumns } from '../event-row.ts';
import type { SqlRunner } from '../runner.ts';
import { identityRows, identityText, storedIdentity } from '../stored-identity.ts';
import { coldEventsIn } from './cold-events.ts';
import { type EventFilter, type FilteredFields, filterConditions, keptByFilter, whereClause } from './events.ts';
import { rowsTable } from './lists.ts';

/** The columns every traffic analysis reads (shared/analysis/types.ts AnalysisEvent, plus the stored verdict). */
const ANALYSIS_FIELDS = [
  'eventId',
  'ts',
  'source',
  'protocol',
  'client',
  'server',
  'session',
  'httpMethod',
  'httpPath',
  'httpStatus',
  'rpcMethod',
  'rpcName',
  'era',
  'protocolVersion',
  'continuation',
  'rpcCode',
  'latencyMs',
  'identity',
  'bucket',
  'kind',
  'rule',
  'waitUntil',
  'discoveryRead',
  'counted',
  'ctxRequested',
  'ctxApplied',
  'ctxReason',
  'avoidable',
  'gateReason',
  'blockedBy',
  'frames',
] as const satisfies readonly (keyof EventColumns)[];

export type AnalysisRow = Pick<EventColumns, (typeof ANALYSIS_FIELDS)[number]>;

/** What a filter tests beside them (keptByFilter): a block read for an analysis inflates no other column. */
const FILTERED_BESIDE = ['actProfile'] as const satisfies readonly (keyof FilteredFields)[];

/** A stored row as the pure analyses read it: the one mapping from the events table to shared/analysis/types.ts. */
export function analysisEventOfRow(row: AnalysisRow): AnalysisEvent {
  return {
    id: row.eventId,
    ts: row.ts,
    seq: 0,
    source: row.source === 'proxy' ? 'proxy' : 'client',
    protocol: row.protocol === 'a2a' ? 'a2a' : 'mcp',
    client: row.client,
    server: row.server,
    session: row.session,
    httpMethod: row.httpMethod,
    httpPath: row.httpPath,
    httpStatus: row.httpStatus,
    rpcMethod: row.rpcMethod,
    rpcName: row.rpcName,
    rpcCode: row.rpcCode,
    // Bit 2: the answer frame (db/event-row.ts); rows stored before the column was added cannot tell.
    answered: row.frames === null ? null : (row.frames & 2) !== 0,
    latencyMs: row.latencyMs,
    identity: row.identity,
    bucket: row.bucket as Bucket,
    kind: row.kind,
    rule: row.rule,
    waitUntil: row.waitUntil,
    discoveryRead: row.discoveryRead === null ? null : row.discoveryRead === 1,
    counted: row.counted === 1,
    era: row.era === '2025' || row.era === '2026' ? row.era : null,
    protocolVersion: row.protocolVersion,
    continuation: row.continuation === 1,
    context:
      row.ctxRequested === null
        ? null
        : {
            requested: row.ctxRequested as ContextScope,
            applied: row.ctxApplied as ContextScope | null,
            reason: row.ctxReason,
          },
  };
}

/** The columns of an AnalysisRow, read from `events` (named so in the query, or its one table). */
export function analysisColumns(db: SqlRunner): SQL {
  return sql`event_id AS "eventId", ts, source, protocol, client, server, session, http_method AS "httpMethod",
  http_path AS "httpPath", http_status AS "httpStatus", rpc_method AS "rpcMethod", rpc_name AS "rpcName", era,
  protocol_version AS "protocolVersion", continuation, rpc_code AS "rpcCode",
  latency_ms AS "latencyMs", ${identityText(db, 'events')} AS identity, bucket, kind, rule, wait_until AS "waitUntil",
  discovery_read AS "discoveryRead", counted, ctx_requested AS "ctxRequested", ctx_applied AS "ctxApplied",
  ctx_reason AS "ctxReason", avoidable, gate_reason AS "gateReason", blocked_by AS "blockedBy", frames`;
}

/** What an analysis may narrow its events to besides the event filter: sampling calls. */
export interface AnalysisFilter extends EventFilter {
  samplingOnly?: boolean;
}

/**
 * Counted events in time order, optionally only sampling calls (the context gap): the rows, and the events of the
 * range packed in cold blocks (db/queries/cold-events.ts), each block looked into only where it holds the client.
 */
export async function analysisRows(db: SqlRunner, filter: AnalysisFilter): Promise<AnalysisRow[]> {
  const conditions = [sql`counted = 1`, ...filterConditions(filter)];
  if (filter.samplingOnly) conditions.push(sql`ctx_requested IS NOT NULL`);
  const [rows, cold] = await Promise.all([
    db.all<AnalysisRow>(
      sql`SELECT ${analysisColumns(db)} FROM events ${whereClause(conditions)} ORDER BY ts, event_id`,
    ),
    coldAnalysisRows(db, filter),
  ]);
  if (cold.length === 0) return rows;
  return [...rows, ...cold].sort((a, b) => a.ts - b.ts || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
}

async function coldAnalysisRows(db: SqlRunner, filter: AnalysisFilter): Promise<AnalysisRow[]> {
  const kept = keptByFilter(filter);
  const client = filter.client;
  return coldEventsIn(
    db,
    filter,
    (event) => event.counted === 1 && kept(event) && (!filter.samplingOnly || event.ctxRequested !== null),
    client === undefined ? undefined : { columns: ['client'], test: (row) => row.client === client },
    [...ANALYSIS_FIELDS, ...FILTERED_BESIDE],
  );
}

export interface IdentityRow {
  identity: string;
  server: string;
  method: string | null;
  sends: number;
  firstTs: number;
  lastTs: number;
}

/** The most re-presented identities in a window (sent more than once), all of them when `limit` is null. */
export async function topIdentityRows(
  db: SqlRunner,
  filter: EventFilter,
  limit: number | null,
): Promise<IdentityRow[]> {
  const top = limit === null ? sql`` : sql` LIMIT ${limit}`;
  return identitySends(db, filter, sql`count(*) > 1`, top);
}

/**
 * The identities of a window sent at least `minSends` times, and those of `always` (public identities) sent more
 * than once: an alert reading's groups that can move an alert (shared/alerts/state.ts lowestThreshold), out of the
 * window's thousands sent twice.
 */
export async function identitiesSentAtLeast(
  db: SqlRunner,
  filter: EventFilter,
  minSends: number,
  always: readonly string[],
): Promise<IdentityRow[]> {
  const known = identityRows(
    db,
    always.map((identity) => [identity]),
    [],
  );
  const kept = known === null ? sql`` : sql` OR (sends.server, sends.identity) IN ${known}`;
  return identitySends(db, filter, sql`count(*) > 1 AND (count(*) >= ${minSends}${kept})`, sql``);
}

/** Per server, its most re-presented identity's sends in a window (servers with none sent twice are left out). */
export async function mostSendsPerServer(
  db: SqlRunner,
  filter: EventFilter,
): Promise<{ server: string; sends: number }[]> {
  return db.all(sql`SELECT server, max(n) AS sends FROM (SELECT sends.server AS server, count(*) AS n
      FROM ${await sendsInWindow(db, filter)} GROUP BY sends.server, sends.identity HAVING count(*) > 1) AS per_identity
    GROUP BY server ORDER BY server`);
}

async function identitySends(db: SqlRunner, filter: EventFilter, having: SQL, top: SQL): Promise<IdentityRow[]> {
  // Ties go by the public identity, as the hour lists rank them: `server:` and then the digest's bytes sort as the
  // string does (both stores compare text by its bytes). The table's columns are named so, not the string's alias.
  return db.all<IdentityRow>(sql`SELECT ${identityText(db, 'sends')} AS identity, sends.server AS server,
      min(rpc_method) AS method, count(*) AS sends, min(ts) AS "firstTs", max(ts) AS "lastTs"
    FROM ${await sendsInWindow(db, filter)}
    GROUP BY sends.server, sends.identity HAVING ${having}
    ORDER BY count(*) DESC, sends.server || ':', sends.identity${top}`);
}

/**
 * Every send of an identity the filter keeps, as a table `sends` (server, identity, rpc_method, ts): the rows', and
 * those packed in cold blocks (db/queries/cold-events.ts) carried in as values, so that one grouping counts both.
 */
async function sendsInWindow(db: SqlRunner, filter: EventFilter): Promise<SQL> {
  // Sends: an MRTR continuation is part of its call, no re-presentation (DOMAIN.md section 10).
  const conditions = [sql`counted = 1`, sql`identity IS NOT NULL`, sql`continuation = 0`, ...filterConditions(filter)];
  // MCP 2026-07-28's input requests are sends too (db/counters/identities.ts), of the rounds the filter keeps.
  // Only a round that answered input_required (pending) asked.
  const rounds = [sql`counted = 1`, sql`bucket = 'pending'`, ...filterConditions(filter)];
  const askedBy = (rounds: SQL) => sql`SELECT server, identity, method AS rpc_method, ts FROM input_requests
    WHERE (event_id, ts, server) IN (${rounds})`;
  const hot = sql`SELECT server, identity, rpc_method, ts FROM events ${whereClause(conditions)}
    UNION ALL ${askedBy(sql`SELECT event_id, ts, server FROM events ${whereClause(rounds)}`)}`;
  const cold = await coldSendsOfFilter(db, filter);
  if (cold.sends.length === 0 && cold.rounds.length === 0) return sql`(${hot}) AS sends`;
  const sends = rowsTable(
    db,
    [
      ['server', 'text'],
      ['identity', 'bytea'],
      ['rpc_method', 'text'],
      ['ts', 'bigint'],
    ],
    cold.sends,
  );
  const keys = rowsTable(
    db,
    [
      ['event_id', 'text'],
      ['ts', 'bigint'],
      ['server', 'text'],
    ],
    cold.rounds,
  );
  return sql`(${hot} UNION ALL SELECT server, identity, rpc_method, ts FROM ${sends} AS cold
    UNION ALL ${askedBy(sql`SELECT event_id, ts, server FROM ${keys} AS cold_rounds`)}) AS sends`;
}

/** The filter's sends among the cold events, as rows of `sends`, and its cold rounds that may have asked for input. */
async function coldSendsOfFilter(db: SqlRunner, filter: EventFilter) {
  const kept = keptByFilter(filter);
  const client = filter.client;
  const events = await coldEventsIn(
    db,
    filter,
    (event) => event.counted === 1 && kept(event),
    client === undefined ? undefined : { columns: ['client'], test: (row) => row.client === client },
    [
      'identity',
      'continuation',
      'bucket',
      'eventId',
      'ts',
      'server',
      'rpcMethod',
      'counted',
      'client',
      'kind',
      'actProfile',
    ],
  );
  const sends: [string, string, string | null, number][] = [];
  const rounds: [string, number, string][] = [];
  for (const event of events) {
    const digest = event.identity === null ? undefined : storedIdentity(event.identity)?.digest;
    if (digest !== undefined && event.continuation === 0) sends.push([event.server, digest, event.rpcMethod, event.ts]);
    if (event.bucket === 'pending') rounds.push([event.eventId, event.ts, event.server]);
  }
  return { sends, rounds };
}

export interface ServerInfoRow {
  name: string;
  hasDiscovery: number;
}

export async function serverInfo(db: SqlRunner): Promise<ServerInfoRow[]> {
  return db.all<ServerInfoRow>(sql`SELECT name, CASE WHEN discovery IS NULL THEN 0 ELSE 1 END AS "hasDiscovery"
    FROM servers ORDER BY name`);
}
