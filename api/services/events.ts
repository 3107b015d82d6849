import type { EventHints } from '../../db/queries/cold-reads.ts';
import { countListed, getEvent, listedPage, partnerRecords } from '../../db/queries/event-reads.ts';
import type { EventCursor, ListFilter, StoredEventRow } from '../../db/queries/events.ts';

import type { SqlRunner } from '../../db/runner.ts';
import {
  actionabilityOf,
  type Bit,
  type BitEvidence,
  type Hidden,
  profileString,
  type Reading,
  type TextEvidence,
  type View,
} from '../../shared/actionability/index.ts';
import { type Bucket, isFailure } from '../../shared/classify/types.ts';
import { validateEvent } from '../../shared/event.ts';
import { type InputRequest, inputRequestsOf } from '../../shared/mrtr.ts';
import { sourceLabel, sourceNote } from '../../shared/source-formats.ts';
import { ServiceError } from './service-error.ts';

/** The `records` a list takes: a row per request (`counted`), or every stored record (`all`). */
export { LISTED_RECORDS } from '../../db/queries/events.ts';

export interface EventView {
  seq: number;
  id: string;
  ts: string;
  source: string;
  client: string | null;
  server: string;
  session: string | null;
  protocol: string;
  method: string | null;
  http: { method: string | null; path: string | null; status: number | null; requestId: string | null };
  rpcCode: number | null;
  latencyMs: number | null;
  identity: string | null;
  /** The MCP era its request speaks (`2025`, `2026`), null where nothing tells (DOMAIN.md section 10). */
  era: string | null;
  protocolVersion: string | null;
  /** An MRTR round that carries the answers to an input request. */
  continuation: boolean;
  /** The server's own requests inside an `input_required` answer (sampling, elicitation): the server sent them. */
  inputRequests: InputRequest[];
  /** False for a proxy record whose request the client also logged: kept, but not counted twice. */
  counted: boolean;
  /**
   * The id of the other record of the same request (the proxy's for a client record, the client's for a proxy
   * record), once the two are joined (shared/request-join.ts); null while it stands alone.
   */
  partner: string | null;
  /** What only a proxy saw (upstream status, user agent, ...: shared/proxy-logs), for a proxy record. */
  proxy: Record<string, unknown> | null;
  bucket: string;
  kind: string;
  rule: string;
  evidence: string;
  /** Whether a client following seed 000's gate would never have sent this request, and why. */
  avoidable: boolean;
  gateReason: string | null;
  /** Which block made it avoidable: `endpoint`, `method`, `key` or `session` (shared/analysis/gate-types.ts). */
  blockedBy: string | null;
  request: unknown;
  response: unknown;
  /**
   * Where the record came from (issue 37): the log format it was read from (null: native NDJSON), in words, what
   * that format cannot show of an outcome (null where its frames are whole), and what a host log's reader noted of
   * the record (its line, a cancel, a late answer, a stderr line: `hostlog`).
   */
  origin: { format: string | null; label: string; note: string | null; facts: Record<string, unknown> | null };
  /**
   * A failure's actionability (seed 004) in each view: the profile and, per bit earned, the field that earned it (in
   * the content view also the rule and the text it fired on), and whether only its text shows it (a hidden failure),
   * read from the stored line now; null for an event that did not fail.
   */
  actionability: EventActionability | null;
}

export type EventActionability = Record<
  View,
  { profile: string; evidence: BitEvidence; text?: Partial<Record<Bit, TextEvidence>> }
> & { hidden: Hidden };

/**
 * A row of the events list. With `records=counted` (the default) a row is a request: the record it is counted by, with
 * the client's outcome when both logged it, and the other record behind it. With `records=all`, a row is a record.
 */
export interface ListedEvent extends EventView {
  /** The other record of this request, whole (the proxy's, for a joined client record); null in a list of records. */
  partnerRecord: EventView | null;
}

/** How many rows the filter lists in all, counted up to TOTAL_CAP. */
export interface ListTotal {
  count: number;
  /** True when there are more than `count`: the count stopped at TOTAL_CAP. */
  capped: boolean;
}

export interface EventPage {
  events: ListedEvent[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
  /**
   * The rows of the whole filter (requests, or records with `records=all`), on the first page; null on later pages,
   * and for a filter no index counts (a bucket, kind or profile; failures but a server's: db/queries/events.ts).
   */
  total: ListTotal | null;
}

/**
 * Past this many rows the total says "more than": counting is a walk of the list's index, and a day of ten million
 * events would be read whole for a number nobody pages through.
 */
export const TOTAL_CAP = 10_000;

/** A page of the list, newest first after `cursor`; the first page (no cursor) also counts the list's rows. */
export async function eventPage(
  db: SqlRunner,
  filter: ListFilter,
  cursor: string | null,
  limit: number,
): Promise<EventPage> {
  const [page, total] = await Promise.all([
    readPage(db, filter, cursor, limit),
    cursor === null ? listTotal(db, filter) : null,
  ]);
  return { ...page, total };
}

async function listTotal(db: SqlRunner, filter: ListFilter): Promise<ListTotal | null> {
  const count = await countListed(db, filter, TOTAL_CAP);
  if (count === null) return null;
  return count > TOTAL_CAP ? { count: TOTAL_CAP, capped: true } : { count, capped: false };
}

async function readPage(
  db: SqlRunner,
  filter: ListFilter,
  cursor: string | null,
  limit: number,
): Promise<Omit<EventPage, 'total'>> {
  const { rows, near } = await listedPage(db, filter, cursor === null ? null : decodeCursor(cursor), limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const partners = filter.records === 'counted' ? pairedWith(await partnerRecords(db, page, near)) : NO_PARTNERS;
  return {
    events: page.map((row) => {
      const partner = row.partner === null ? undefined : partners.get(pairKey(row.partner, row.eventId));
      return { ...toView(row), partnerRecord: partner === undefined ? null : toView(partner) };
    }),
    nextCursor: rows.length > limit && last ? encodeCursor({ ts: last.ts, seq: last.seq }) : null,
  };
}

const NO_PARTNERS: ReadonlyMap<string, StoredEventRow> = new Map();

/** The partner records by pairKey(their id, the id they name): a record is the partner of one that names it back. */
function pairedWith(partners: readonly StoredEventRow[]): Map<string, StoredEventRow> {
  return new Map(partners.map((partner) => [pairKey(partner.eventId, partner.partner ?? ''), partner]));
}

function pairKey(id: string, partner: string): string {
  return `${id}\u0000${partner}`;
}

/** Rows per read while a download walks every page: a page's worth of memory, whatever the export's size. */
const EXPORT_PAGE = 1000;

/** Every row the filter lists, newest first from `cursor` on, read a page at a time as they are taken. */
export async function* allEvents(
  db: SqlRunner,
  filter: ListFilter,
  cursor: string | null,
): AsyncGenerator<ListedEvent> {
  let next = cursor;
  do {
    const page = await readPage(db, filter, next, EXPORT_PAGE);
    yield* page.events;
    next = page.nextCursor;
  } while (next !== null);
}

/**
 * One event by id. An event older than the hot window is in a cold block, which no id index finds: `hints` (its time,
 * its server) take the look-up to its hour's blocks; without them only the newest blocks are searched, and the
 * refusal says what to add.
 */
export async function eventById(db: SqlRunner, id: string, hints: EventHints = {}): Promise<EventView> {
  const { event, searchedAll } = await getEvent(db, id, hints);
  if (event !== null) return toView(event);
  if (searchedAll) {
    throw new ServiceError('not_found', 'no stored event has that id', {
      fix: 'Take an id from GET /api/v1/events; an event sent without an id is named h:<digest of its content>.',
    });
  }
  throw new ServiceError('not_found', 'no event with that id among the recent events and the newest packed ones', {
    fix: 'Add ts=<the event time, ISO 8601 or epoch ms> and server=<its server> (as GET /api/v1/events lists them): an event older than the hot window is found by the hour it is packed in.',
  });
}

export function encodeCursor(cursor: EventCursor): string {
  return Buffer.from(`${cursor.ts}.${cursor.seq}`).toString('base64url');
}

/** Null when the text is not a cursor this API issued. */
export function decodeCursor(text: string): EventCursor | null {
  const match = /^(\d+)\.(\d+)$/.exec(Buffer.from(text, 'base64url').toString());
  return match ? { ts: Number(match[1]), seq: Number(match[2]) } : null;
}

function toView(row: StoredEventRow): EventView {
  const body = JSON.parse(row.body) as { request?: unknown; response?: unknown; proxy?: unknown; hostlog?: unknown };
  return {
    seq: row.seq,
    id: row.eventId,
    ts: new Date(row.ts).toISOString(),
    source: row.source,
    client: row.client,
    server: row.server,
    session: row.session,
    protocol: row.protocol,
    method: row.rpcMethod,
    http: { method: row.httpMethod, path: row.httpPath, status: row.httpStatus, requestId: row.requestId },
    rpcCode: row.rpcCode,
    latencyMs: row.latencyMs,
    identity: row.identity,
    era: row.era,
    protocolVersion: row.protocolVersion,
    continuation: row.continuation === 1,
    inputRequests: inputRequestsOf(row.server, body),
    counted: row.counted === 1,
    partner: row.partner,
    proxy: row.source === 'proxy' && isRecord(body.proxy) ? body.proxy : null,
    bucket: row.bucket,
    kind: row.kind,
    rule: row.rule,
    evidence: row.evidence,
    avoidable: row.avoidable === 1,
    gateReason: row.gateReason,
    blockedBy: row.blockedBy,
    request: body.request ?? null,
    response: body.response ?? null,
    origin: {
      format: row.sourceFormat,
      label: sourceLabel(row.sourceFormat),
      note: sourceNote(row.sourceFormat),
      facts: isRecord(body.hostlog) ? body.hostlog : null,
    },
    actionability: actionabilityOfLine(body, row.bucket as Bucket),
  };
}

/** As the row's `act_profile` was read (shared/actionability storedProfile), with the evidence of each bit. */
function actionabilityOfLine(line: unknown, bucket: Bucket): EventActionability | null {
  const parsed = validateEvent(line);
  const read = parsed.ok ? actionabilityOf(parsed.event) : undefined;
  if (read === undefined || !(isFailure(bucket) || read.hidden.failure)) return null;
  const view = ({ profile, evidence }: Reading) => ({ profile: profileString(profile), evidence });
  return {
    control: view(read.control),
    transport: view(read.transport),
    content: { ...view(read.content), text: read.content.text ?? {} },
    hidden: read.hidden,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
