/**
 * One request, counted once (DOMAIN.md section 2): which proxy record is the same request as which client record.
 *
 * Pairs are found in three ways, surest first: the `X-Request-Id` both recorded, the `traceparent` (or session +
 * JSON-RPC id) both recorded, and otherwise the request's shape and time: the same server, HTTP method, path,
 * compatible status and session, the proxy's record inside the client's send-to-answer span give or take a skew.
 * Each record joins at most one other; when several could, the surest and then the closest in time wins, so the
 * pairing does not depend on the order records arrived in. Pure: the stores and the offline run call it alike.
 *
 * A log of whole seconds (nginx `combined`) leaves several lines of one second alike but for their user agent,
 * which no client record carries: the order the log wrote them in tells them apart (the earlier request takes the
 * earlier line).
 */

/** What pairing reads of one record; the columns of the events table, under their row names. */
export interface JoinFacts {
  eventId: string;
  source: 'client' | 'proxy';
  server: string;
  ts: number;
  latencyMs: number | null;
  session: string | null;
  httpMethod: string | null;
  httpPath: string | null;
  httpStatus: number | null;
  timeout: boolean;
  requestId: string | null;
  correlation: string | null;
  /**
   * Where the record came in its log (its arrival order): a log writes its lines as requests end, so among lines
   * alike to the second, the earlier line is the earlier request's.
   */
  order: number;
}

export type JoinedBy = 'request_id' | 'correlation' | 'timing';

export interface JoinedPair {
  client: JoinFacts;
  proxy: JoinFacts;
  by: JoinedBy;
}

/**
 * How far a proxy's clock and a client's may disagree. Both usually run NTP; a proxy's `msec` and the client's
 * send time differ by the network's few milliseconds.
 */
export const JOIN_SKEW_MS = 1000;
/** An access log that writes whole seconds (`$time_local`): the second the request ended, not its start. */
const SECOND_RESOLUTION_MS = 1000;
/**
 * How long a request with no latency on either side may have run: a combined log dates a request by its end, and a
 * client that timed out logged no answer. Longer requests (an SSE stream open for minutes) are left unjoined.
 */
export const JOIN_MAX_SPAN_MS = 60_000;

/** The proxy times that could be this client record's partner, for a candidate query (inclusive). */
export function proxyWindow(client: JoinFacts): [from: number, to: number] {
  return [client.ts - JOIN_SKEW_MS - SECOND_RESOLUTION_MS, client.ts + spanOf(client) + JOIN_SKEW_MS];
}

/** The client times that could be this proxy record's partner, for a candidate query (inclusive). */
export function clientWindow(proxy: JoinFacts): [from: number, to: number] {
  if (proxy.latencyMs !== null) return [proxy.ts - JOIN_SKEW_MS, proxy.ts + JOIN_SKEW_MS];
  return [proxy.ts - JOIN_MAX_SPAN_MS - JOIN_SKEW_MS, proxy.ts + JOIN_SKEW_MS + SECOND_RESOLUTION_MS];
}

/**
 * Pairs client records with proxy records, one to one. Records already paired elsewhere must not be passed in.
 * Deterministic: the same records give the same pairs in any order.
 */
export function pairRecords(clients: readonly JoinFacts[], proxies: readonly JoinFacts[]): JoinedPair[] {
  const candidates: Candidate[] = [];
  const byRequestId = indexBy(proxies, (p) => p.requestId);
  const byCorrelation = indexBy(proxies, (p) => p.correlation);
  const byShape = shapeIndex(proxies);
  for (const client of clients) {
    for (const proxy of client.requestId === null ? [] : (byRequestId.get(client.requestId) ?? [])) {
      candidates.push({ client, proxy, by: 'request_id', tier: 0, distance: Math.abs(proxy.ts - client.ts) });
    }
    for (const proxy of client.correlation === null ? [] : (byCorrelation.get(client.correlation) ?? [])) {
      if (keysConflict(client, proxy, 'requestId')) continue;
      candidates.push({ client, proxy, by: 'correlation', tier: 1, distance: Math.abs(proxy.ts - client.ts) });
    }
    const shape = shapeOf(client);
    if (shape === null) continue;
    const [from, to] = proxyWindow(client);
    for (const proxy of inWindow(byShape.get(shape) ?? [], from, to)) {
      const distance = timingDistance(client, proxy);
      if (distance !== null && sameRequestShape(client, proxy)) {
        candidates.push({ client, proxy, by: 'timing', tier: 2, distance });
      }
    }
  }
  candidates.sort(byCertainty);
  const pairs: JoinedPair[] = [];
  const taken = new Set<string>();
  for (const { client, proxy, by } of candidates) {
    if (taken.has(client.eventId) || taken.has(proxy.eventId)) continue;
    taken.add(client.eventId);
    taken.add(proxy.eventId);
    pairs.push({ client, proxy, by });
  }
  return pairs;
}

interface Candidate extends JoinedPair {
  tier: number;
  distance: number;
}

function byCertainty(a: Candidate, b: Candidate): number {
  return (
    a.tier - b.tier ||
    a.distance - b.distance ||
    a.client.ts - b.client.ts ||
    a.proxy.ts - b.proxy.ts ||
    a.proxy.order - b.proxy.order ||
    compareText(a.client.eventId, b.client.eventId) ||
    compareText(a.proxy.eventId, b.proxy.eventId)
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Two records that both carry a key, and different ones, are two requests whatever else they share. */
function keysConflict(client: JoinFacts, proxy: JoinFacts, key: 'requestId' | 'correlation'): boolean {
  const a = client[key];
  const b = proxy[key];
  return a !== null && b !== null && a !== b;
}

function sameRequestShape(client: JoinFacts, proxy: JoinFacts): boolean {
  if (keysConflict(client, proxy, 'requestId')) return false;
  // Only a traceparent names one request; a session + JSON-RPC id key is never on an access-log line.
  if (keysConflict(client, proxy, 'correlation') && isTrace(client.correlation) && isTrace(proxy.correlation)) {
    return false;
  }
  if (client.session !== null && proxy.session !== null && client.session !== proxy.session) return false;
  return statusAgrees(client, proxy);
}

function isTrace(correlation: string | null): boolean {
  return correlation?.startsWith('tp:') === true;
}

/**
 * The proxy logs what it sent back; the client may have logged no status (it gave up: nginx writes 499 for a client
 * that closed first) or a different one (a redirect the HTTP library followed is not that: it is two requests).
 */
function statusAgrees(client: JoinFacts, proxy: JoinFacts): boolean {
  if (client.httpStatus === null || proxy.httpStatus === null) return true;
  if (client.httpStatus === proxy.httpStatus) return true;
  return proxy.httpStatus === 499 && client.timeout;
}

/**
 * How far apart the two records' times are, or null when they cannot be one request. With a latency the proxy's
 * `ts` is the request's start, as the client's is; without one (a combined log) it is the second the request ended.
 */
function timingDistance(client: JoinFacts, proxy: JoinFacts): number | null {
  if (proxy.latencyMs !== null) {
    const distance = Math.abs(proxy.ts - client.ts);
    return distance <= JOIN_SKEW_MS ? distance : null;
  }
  const [from, to] = proxyWindow(client);
  if (proxy.ts < from || proxy.ts > to) return null;
  if (client.latencyMs === null) return Math.max(0, proxy.ts - client.ts);
  // The log's second holds the end: a proxy second just before the end is as close as one just after.
  const end = client.ts + client.latencyMs;
  return Math.max(0, Math.abs(proxy.ts + SECOND_RESOLUTION_MS / 2 - end) - SECOND_RESOLUTION_MS / 2);
}

/**
 * How long the client's request may have run: its latency (whole milliseconds, since windows bound an integer
 * column), never more than a joinable request can, which is also all it may be without one.
 */
function spanOf(client: JoinFacts): number {
  return client.latencyMs === null ? JOIN_MAX_SPAN_MS : Math.min(Math.ceil(client.latencyMs), JOIN_MAX_SPAN_MS);
}

/** Server, HTTP method and path without its query: what a request and its access-log line always share. */
export function shapeOf(record: JoinFacts): string | null {
  if (record.httpMethod === null || record.httpPath === null) return null;
  const query = record.httpPath.indexOf('?');
  const path = query === -1 ? record.httpPath : record.httpPath.slice(0, query);
  return JSON.stringify([record.server, record.httpMethod.toUpperCase(), path]);
}

function shapeIndex(records: readonly JoinFacts[]): Map<string, JoinFacts[]> {
  const index = indexBy(records, shapeOf);
  for (const list of index.values()) list.sort((a, b) => a.ts - b.ts);
  return index;
}

function indexBy(records: readonly JoinFacts[], key: (record: JoinFacts) => string | null): Map<string, JoinFacts[]> {
  const index = new Map<string, JoinFacts[]>();
  for (const record of records) {
    const value = key(record);
    if (value === null) continue;
    const list = index.get(value);
    if (list === undefined) index.set(value, [record]);
    else list.push(record);
  }
  return index;
}

/** The records of a list sorted by `ts` whose `ts` is in [from, to]. */
function inWindow(sorted: readonly JoinFacts[], from: number, to: number): JoinFacts[] {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as JoinFacts).ts < from) low = mid + 1;
    else high = mid;
  }
  const found: JoinFacts[] = [];
  for (let i = low; i < sorted.length && (sorted[i] as JoinFacts).ts <= to; i++) found.push(sorted[i] as JoinFacts);
  return found;
}
