import { BUCKET_LABEL, isBucket } from '../buckets.ts';
import { formatDay, formatTimeMs } from '../format.ts';
import type { EventView } from '../queries/events.ts';
import { answerLabel } from './timeline.ts';

/**
 * One request seen by two observers is stored as two records, joined (DOMAIN.md section 2): what the event detail
 * says about the pair. Text from logs stays text here; the components render it as React text, never as HTML.
 */

export type JoinedRecord = Pick<
  EventView,
  'id' | 'ts' | 'source' | 'counted' | 'partner' | 'latencyMs' | 'bucket' | 'kind' | 'rpcCode' | 'http' | 'proxy'
>;

export interface Fact {
  /** Unique within one list (a React key): the proxy member it came from, or the row it was folded into. */
  key: string;
  term: string;
  value: string;
}

/** Who wrote the record, as a reader says it: "client", "proxy". */
function observer(source: string): string {
  return source === 'client' || source === 'proxy' ? source : `"${source}"`;
}

/** "Client's record", "Proxy's record". */
export function recordLabel(source: string): string {
  if (source === 'client') return "Client's record";
  if (source === 'proxy') return "Proxy's record";
  return `Record from "${source}"`;
}

/** The link from one record to the other: "Open the proxy's record". */
export function openLabel(source: string): string {
  return source === 'client' || source === 'proxy' ? `Open the ${source}'s record` : 'Open the other record';
}

/** Why a record is not in the counts, for the event list and the detail; null for a counted one. */
export function notCountedHint(record: Pick<JoinedRecord, 'source' | 'counted'>): string | null {
  if (record.counted) return null;
  return record.source === 'proxy' ? 'not counted: joined to client record' : 'not counted';
}

/** Which of the two records the counts read, in a sentence. */
export function countedLine(a: Pick<JoinedRecord, 'source' | 'counted'>, b: typeof a): string {
  if (a.counted && b.counted) return 'Both records are counted: this request is counted twice.';
  if (!a.counted && !b.counted) return 'Neither record is counted.';
  const [counted, kept] = a.counted ? [a, b] : [b, a];
  return `Counted once, with the ${observer(counted.source)}'s view: the ${observer(kept.source)}'s record is kept for what it saw.`;
}

const SOURCE_ORDER = ['client', 'proxy'];

/** The pair in a fixed order, the client's record first, whichever of the two is open. */
export function orderPair<T extends Pick<JoinedRecord, 'source'>>(open: T, partner: T): [T, T] {
  const rank = (record: T) => {
    const index = SOURCE_ORDER.indexOf(record.source);
    return index === -1 ? SOURCE_ORDER.length : index;
  };
  return rank(partner) < rank(open) ? [partner, open] : [open, partner];
}

export interface CompareRow {
  term: string;
  values: [string, string];
}

function bucketText(record: JoinedRecord): string {
  const label = isBucket(record.bucket) ? BUCKET_LABEL[record.bucket] : record.bucket;
  return record.kind === record.bucket || record.kind === 'ok' ? label : `${label} · ${record.kind}`;
}

function latencyText(latencyMs: number | null): string {
  return latencyMs === null ? '–' : `${latencyMs} ms`;
}

/** The two records side by side, on what both observers log: when, the answer, how long, the bucket, counted. */
export function compareRows(pair: [JoinedRecord, JoinedRecord]): CompareRow[] {
  const row = (term: string, read: (record: JoinedRecord) => string): CompareRow => ({
    term,
    values: [read(pair[0]), read(pair[1])],
  });
  return [
    row('When', (record) => formatTimeMs(Date.parse(record.ts))),
    row('Answer', (record) => answerLabel({ status: record.http.status, rpcCode: record.rpcCode })),
    row('Took', (record) => latencyText(record.latencyMs)),
    row('Bucket', bucketText),
    row('Counted', (record) => (record.counted ? 'yes' : 'no')),
  ];
}

/** Where the two disagree on the answer (a proxy logs 200 for a JSON-RPC error in the body), in a sentence. */
export function answerDisagreement(pair: [JoinedRecord, JoinedRecord]): string | null {
  const [first, second] = pair.map((record) => answerLabel({ status: record.http.status, rpcCode: record.rpcCode }));
  if (first === second) return null;
  const counted = pair.find((record) => record.counted);
  const verdict = counted === undefined ? '' : ` The ${observer(counted.source)}'s answer is the one counted.`;
  return `They disagree on the answer: the ${observer(pair[0].source)} saw ${first}, the ${observer(pair[1].source)} ${second}.${verdict}`;
}

/** When a proxy wrote its line (nginx logs at the request's end): "2 Dec 02:42:57.521 UTC"; null if not a time. */
export function formatLoggedAt(value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const ms = Math.trunc(value);
  if (Number.isNaN(new Date(ms).getTime())) return null;
  return `${formatDay(ms)} ${formatTimeMs(ms)} UTC`;
}

/** A proxy fact as text: strings and numbers as logged, nothing for an empty or absent one. */
function factText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return null;
  return JSON.stringify(value);
}

/** An own member: a key named `__proto__` or `constructor` in a log is data, never the prototype's. */
function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** The proxy facts shown under their own names, in this order; any other member follows under its key. */
const NAMED: readonly (readonly [key: string, term: string])[] = [
  ['userAgent', 'User agent'],
  ['remoteAddr', 'Remote address'],
  ['forwardedFor', 'Forwarded for'],
  ['host', 'Host'],
  ['protocol', 'Protocol'],
  ['upstreamHost', 'Upstream host'],
  ['responseFlags', 'Response flags'],
  ['requestLine', 'Request line'],
];
/** Read into the rows above the named ones (timing), not shown again. */
const FOLDED = new Set(['upstreamStatus', 'loggedAt', 'upstreamServiceTimeMs']);

function timing(record: Pick<JoinedRecord, 'latencyMs'>, proxy: Record<string, unknown>): string | null {
  const upstream = own(proxy, 'upstreamServiceTimeMs');
  const logged = formatLoggedAt(own(proxy, 'loggedAt'));
  const parts = [
    record.latencyMs === null ? null : `${record.latencyMs} ms`,
    typeof upstream === 'number' && Number.isFinite(upstream) ? `upstream ${upstream} ms` : null,
    logged === null ? null : `logged ${logged}`,
  ].filter((part) => part !== null);
  return parts.length === 0 ? null : parts.join(', ');
}

/**
 * What only the proxy saw, for its compact definition list: its request id, the upstream's status (always said,
 * "none logged" included: a proxy that answered by itself, a 429 from its rate limit, reached no upstream), the
 * timing, the user agent, then the rest as logged. Empty for a record that is not a proxy's; only the request id for
 * one without a `proxy` member (native NDJSON written by a proxy, not read from its access log).
 */
export function proxyFacts(record: Pick<JoinedRecord, 'source' | 'latencyMs' | 'http' | 'proxy'>): Fact[] {
  if (record.source !== 'proxy') return [];
  const facts: Fact[] = [];
  const add = (key: string, term: string, value: string | null) => {
    if (value !== null) facts.push({ key, term, value });
  };
  add('http.requestId', 'Request id', factText(record.http.requestId));
  // A proxy record sent as native NDJSON may carry no proxy member: nothing more to say, not "none logged".
  const proxy = record.proxy;
  if (proxy === null) return facts;
  add('upstreamStatus', 'Upstream status', factText(own(proxy, 'upstreamStatus')) ?? 'none logged');
  add('timing', 'Timing', timing(record, proxy));
  const named = new Set<string>(FOLDED);
  for (const [key, term] of NAMED) {
    named.add(key);
    add(key, term, factText(own(proxy, key)));
  }
  for (const key of Object.keys(proxy)) {
    if (!named.has(key)) add(`proxy.${key}`, key, factText(own(proxy, key)));
  }
  return facts;
}
