import { type SQL, sql } from 'drizzle-orm';
import { HIDDEN_FAILURE_AT_LEAST, HIDDEN_THROTTLE_AT_LEAST } from '../../shared/actionability/profile.ts';
import type { EventColumns } from '../event-row.ts';
import type { SqlRunner } from '../runner.ts';
import { identityText } from '../stored-identity.ts';
import { LINE_PLACE, type WithBlock, withBodies } from './bodies.ts';
import { rowsTable } from './lists.ts';

export interface EventFilter {
  server?: string;
  client?: string;
  bucket?: string;
  kind?: string;
  /** Only failures (any bucket but `ok`). */
  failed?: boolean;
  /** Only failures with this control-view actionability profile (shared/actionability, 0..63). */
  controlProfile?: number;
  /** Only hidden failures (success-shaped errors), or only hidden throttles among them. */
  hidden?: 'failure' | 'throttle';
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
}

/**
 * Which rows a list of events reads. `counted`: one per request, the record it is counted by (a proxy's record that a
 * client's record of the same request shadows is left out: DOMAIN.md section 2, shared/request-join.ts). `all`: every
 * stored record, both of a joined request.
 */
export const LISTED_RECORDS = ['counted', 'all'] as const;
export type ListedRecords = (typeof LISTED_RECORDS)[number];

/** A list's filter: which events, and whether a row is a request or a record. */
export interface ListFilter extends EventFilter {
  records: ListedRecords;
}

/** Position after which the next page starts: newest first, ties broken by arrival order. */
export interface EventCursor {
  ts: number;
  seq: number;
}

/**
 * The columns of an event row that the events list and the event view leave out: a read of cold blocks for them
 * inflates none of these (db/queries/cold-reads.ts).
 */
export const UNLISTED_COLUMNS = [
  'timeout',
  'discoveryRead',
  'retryAfter',
  'correlation',
  'waitUntil',
  'ctxRequested',
  'ctxApplied',
  'ctxReason',
] as const satisfies readonly (keyof EventColumns)[];

/** An event as the events list and the event view read it: its columns and the line it came from. */
export interface StoredEventRow extends Omit<EventColumns, (typeof UNLISTED_COLUMNS)[number]> {
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
  // `bucket <> 'ok'` as events_failed_idx has it, so that the index serves; an input request is no failure either,
  // nor a record whose log shows no outcome (ADR 18).
  if (filter.failed === true) conditions.push(sql`bucket <> 'ok'`, sql`bucket <> 'pending'`, sql`bucket <> 'unknown'`);
  // The control view is the packed profile's low six bits (shared/actionability packViews).
  if (filter.controlProfile !== undefined) conditions.push(sql`act_profile % 64 = ${filter.controlProfile}`);
  // The hidden flags are the packed value's top bits: a comparison selects them.
  if (filter.hidden !== undefined) {
    const least = filter.hidden === 'failure' ? HIDDEN_FAILURE_AT_LEAST : HIDDEN_THROTTLE_AT_LEAST;
    conditions.push(sql`act_profile >= ${least}`);
  }
  if (filter.from !== undefined) conditions.push(sql`ts >= ${filter.from}`);
  if (filter.to !== undefined) conditions.push(sql`ts < ${filter.to}`);
  return conditions;
}

/** The fields of an event that filterConditions tests. */
export type FilteredFields = Pick<EventColumns, 'ts' | 'server' | 'client' | 'bucket' | 'kind' | 'actProfile'>;

/**
 * filterConditions as a test of one event already read (a cold block's: db/queries/cold-reads.ts, analysis.ts),
 * kept beside the SQL so that the two cannot drift: tests/api/cold-reads.test.ts runs both over the same rows. A SQL
 * comparison with NULL is not true, so a missing client or profile fails a test of it here too.
 */
export function keptByFilter(filter: EventFilter): (event: FilteredFields) => boolean {
  const least = filter.hidden === 'failure' ? HIDDEN_FAILURE_AT_LEAST : HIDDEN_THROTTLE_AT_LEAST;
  return (event) =>
    (filter.server === undefined || event.server === filter.server) &&
    (filter.client === undefined || event.client === filter.client) &&
    (filter.bucket === undefined || event.bucket === filter.bucket) &&
    (filter.kind === undefined || event.kind === filter.kind) &&
    (filter.failed !== true || !NOT_FAILED.has(event.bucket)) &&
    (filter.controlProfile === undefined ||
      (event.actProfile !== null && event.actProfile % 64 === filter.controlProfile)) &&
    (filter.hidden === undefined || (event.actProfile !== null && event.actProfile >= least)) &&
    (filter.from === undefined || event.ts >= filter.from) &&
    (filter.to === undefined || event.ts < filter.to);
}

/** The fields of an event that a list's filter and cursor test. */
export type ListedFields = FilteredFields & Pick<EventColumns, 'seq' | 'counted'>;

/** listConditions as a test of one event already read, as keptByFilter is of filterConditions. */
export function listedBy(filter: ListFilter): (event: ListedFields) => boolean {
  const kept = keptByFilter(filter);
  return (event) => kept(event) && (filter.records !== 'counted' || event.counted === 1);
}

/** The buckets `failed` leaves out, as filterConditions does. */
const NOT_FAILED: ReadonlySet<string> = new Set(['ok', 'pending', 'unknown']);

/** Whether an event comes after the cursor in the list's order (newest first, then latest arrival first). */
export function afterCursor(event: Pick<EventColumns, 'ts' | 'seq'>, cursor: EventCursor | null): boolean {
  return cursor === null || event.ts < cursor.ts || (event.ts === cursor.ts && event.seq < cursor.seq);
}

/** The list's order: newest first, ties by arrival, latest first. */
export function newestFirst(a: Pick<EventColumns, 'ts' | 'seq'>, b: Pick<EventColumns, 'ts' | 'seq'>): number {
  return b.ts - a.ts || b.seq - a.seq;
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

/** An event's columns and where its line is (LINE_PLACE), for withBodies. */
function eventColumns(db: SqlRunner): SQL {
  return sql`seq, event_id AS "eventId", ts, source, client, server, session, protocol,
  rpc_method AS "rpcMethod", http_method AS "httpMethod", http_path AS "httpPath", http_status AS "httpStatus",
  rpc_code AS "rpcCode", latency_ms AS "latencyMs", ${identityText(db, 'events')} AS identity, counted, bucket, kind,
  rule, evidence, avoidable, gate_reason AS "gateReason", blocked_by AS "blockedBy", request_id AS "requestId",
  partner, act_profile AS "actProfile", era, protocol_version AS "protocolVersion", continuation,
  source_format AS "sourceFormat", frames, ${LINE_PLACE}`;
}

/** An event row by id, if one is a row (db/queries/event-reads.ts getEvent also looks in cold blocks). */
export async function getHotEvent(db: SqlRunner, eventId: string): Promise<StoredEventRow | null> {
  const rows = await db.all<WithBlock<StoredEventRow>>(
    sql`SELECT ${eventColumns(db)} FROM events WHERE event_id = ${eventId}`,
  );
  return (await withBodies(db, rows))[0] ?? null;
}

/** The conditions of a list: the filter's, and for one row per request only the counted records. */
function listConditions(filter: ListFilter): SQL[] {
  const conditions = filterConditions(filter);
  // Not in any index: every index a list walks is in time order, and the shadowed records it skips are at most half
  // of those it reads, so a page reads at most twice its rows, as it did with both records listed.
  if (filter.records === 'counted') conditions.push(sql`counted = 1`);
  return conditions;
}

/**
 * The rows of a list's page, newest first after `cursor`, their lines not read yet: db/queries/event-reads.ts
 * listEvents merges them with the cold events and reads the lines of those it keeps.
 */
export function hotListedRows(
  db: SqlRunner,
  filter: ListFilter,
  cursor: EventCursor | null,
  limit: number,
): Promise<WithBlock<StoredEventRow>[]> {
  const conditions = listConditions(filter);
  if (cursor) conditions.push(sql`(ts < ${cursor.ts} OR (ts = ${cursor.ts} AND seq < ${cursor.seq}))`);
  return db.all<WithBlock<StoredEventRow>>(sql`SELECT ${eventColumns(db)}
    FROM events ${whereClause(conditions)} ORDER BY ts DESC, seq DESC LIMIT ${limit}`);
}

/**
 * How many rows of `events` a list of `filter` holds, counted up to `cap` (a count past it answers `cap + 1`), or null
 * where that count is not one an index serves (`countable`): the same walk of the same index as the list's pages,
 * stopped after `cap + 1` rows, so that a day of millions costs what a few pages cost rather than a read of the whole
 * day. db/queries/event-reads.ts countListed adds the cold events.
 */
export async function countHotListed(db: SqlRunner, filter: ListFilter, cap: number): Promise<number | null> {
  if (!countable(filter)) return null;
  const rows = await db.all<{ listed: number | string }>(sql`SELECT count(*) AS listed
    FROM (SELECT 1 FROM events ${whereClause(listConditions(filter))} LIMIT ${cap + 1}) AS capped`);
  return Number(rows[0]?.listed ?? 0);
}

/**
 * Whether an index holds a list's rows in time order with no test left but `counted` (which skips at most one
 * record in two): the range alone, a server, a client, both, or a server's failed requests (events_failed_ts_idx).
 * A bucket, a kind, a profile, failures of a client or of the fleet are tested row by row, so a count of a rare one
 * would read every event of the range; their pages stop at a page's worth of matches, a count would not.
 */
function countable(filter: ListFilter): boolean {
  if (filter.bucket !== undefined || filter.kind !== undefined || filter.controlProfile !== undefined) return false;
  if (filter.failed !== true) return true;
  return filter.server !== undefined && filter.client === undefined && filter.records === 'counted';
}

/**
 * The other records of the given records' requests: each record that one of `records` names as its partner and that
 * names it back. By id alone: a pair's two times can be far apart (a request id or a traceparent joins them at any
 * distance), and so can its two server names (a request id pairs records whatever server each names), so neither
 * time nor server bounds the look-up, and on PostgreSQL each id is looked up in every day partition's
 * events_event_id_uq (a page of 50 in 31 days: ~2 ms planned, ~3 ms run; bounded near the naming record's time it
 * ran in 1 ms but took as long to plan, so it is not). The ids go PARTNER_CHUNK at a time: past PostgreSQL's
 * jit_above_cost a statement was compiled first, 0.5 s for 3 ms of work. SQLite loops over the ids as the outer
 * table by itself.
 */
export async function hotPartnerRecords(
  db: SqlRunner,
  records: readonly Pick<StoredEventRow, 'eventId' | 'partner'>[],
): Promise<StoredEventRow[]> {
  const named = records.flatMap((record): [string, string][] =>
    record.partner === null ? [] : [[record.partner, record.eventId]],
  );
  const found: StoredEventRow[] = [];
  for (let i = 0; i < named.length; i += PARTNER_CHUNK) {
    found.push(...(await partnersOf(db, named.slice(i, i + PARTNER_CHUNK))));
  }
  return found;
}

/** Ids per look-up of partners: a page of the dashboard's list in one, an export's page of 1000 in ten. */
const PARTNER_CHUNK = 100;

/**
 * On PostgreSQL the ids are one array, `event_id = ANY(…)`: an array compared with an indexed column is an index
 * condition, a descent of events_event_id_uq per id in each day partition, where the same ids as a table joined
 * plainly were hashed against a sequential scan of every partition (1.8 s at 520k events). The named-back test and
 * the one record a pair are kept here, as the LATERAL look-up per pair (`… LIMIT 1`) this replaces kept them: Citus
 * refuses a LIMIT in a LATERAL subquery over a table function, and no leg per server applies (the partner's server is
 * not known). On Citus the array goes to every shard of events, each using its own index. A page of 50 in 31 day
 * partitions of 520k events: 12.2 ms planned and run against 9.7 ms for the LATERAL form (medians of 40 alternated
 * runs, loaded machine), the array costing more to plan (7.6 ms against 3.0) and less to run (3.9 against 6.7); with
 * `partner = ANY(…)` as a second array it planned in 11.5 ms.
 */
async function partnersOf(db: SqlRunner, named: readonly (readonly [string, string])[]): Promise<StoredEventRow[]> {
  if (db.dialect === 'sqlite') {
    const pairs = rowsTable(
      db,
      [
        ['record_id', 'text'],
        ['named_by', 'text'],
      ],
      named,
    );
    return withBodies(
      db,
      await db.all<WithBlock<StoredEventRow>>(sql`SELECT ${eventColumns(db)} FROM ${pairs} AS pairs
        JOIN events ON events.event_id = pairs.record_id AND events.partner = pairs.named_by`),
    );
  }
  const rows = await db.all<WithBlock<StoredEventRow>>(sql`SELECT ${eventColumns(db)} FROM events
    WHERE event_id = ANY(${sql.param(named.map(([id]) => id))}::text[])`);
  const wanted = new Set(named.map(([id, namer]) => pairKey(id, namer)));
  const kept = rows.filter((row) => row.partner !== null && wanted.delete(pairKey(row.eventId, row.partner)));
  return withBodies(db, kept);
}

/** A partner record as looked for: its id and the id of the record it names back. */
export function pairKey(id: string, namer: string): string {
  return `${id}\u0000${namer}`;
}
