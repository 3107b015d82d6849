import { isDeclared } from '../discovery.ts';
import type { Kind } from './kinds.ts';
import { outcome } from './outcome.ts';
import type { Signals } from './signals.ts';
import type { Classification, ServerPolicy } from './types.ts';

type Match = Classification | undefined;

const NOT_ALLOWED = outcome('http.method_not_allowed', 'refusal', 'not_supported', 'http_status');

export function methodNotAllowed(s: Signals): Match {
  return s.status === 405 ? NOT_ALLOWED : undefined;
}

/**
 * A 404 is judged against the document the product holds, not the one the client had read (DOMAIN.md section 3).
 * A 404 whose path was not logged cannot be checked against any document, so it is as unclassifiable as one
 * without a document (seed 000, "Condition of Validity").
 */
const noDocument = (s: Signals, p: ServerPolicy) => s.status === 404 && p.discovery === null;
const noPath = (s: Signals, p: ServerPolicy) => s.status === 404 && p.discovery !== null && !s.path;

/** Whether a 404's path is declared; undefined when it is no 404 or cannot be judged. */
function declared404(s: Signals, p: ServerPolicy): boolean | undefined {
  if (s.status !== 404 || p.discovery === null || !s.path) return undefined;
  return isDeclared(p.discovery, s.method, s.path);
}

const NO_DISCOVERY = outcome('http.404.no_discovery', 'ambiguous', 'unclassifiable_no_discovery', 'http_status');
const NO_PATH = outcome('http.404.no_path', 'ambiguous', 'unclassifiable_no_discovery', 'http_status');
const NOT_DECLARED = outcome('http.404.not_declared', 'refusal', 'not_declared', 'http_status');
const SESSION_GONE = outcome('http.404.session_expired', 'refusal', 'session_expired', 'http_status');
const DECLARED = outcome('http.404.declared_path', 'ambiguous', 'declared_path_404', 'http_status');

export const notFoundNoDiscovery = (s: Signals, p: ServerPolicy): Match =>
  noDocument(s, p) ? NO_DISCOVERY : undefined;

export const notFoundNoPath = (s: Signals, p: ServerPolicy): Match => (noPath(s, p) ? NO_PATH : undefined);

export const notFoundUndeclared = (s: Signals, p: ServerPolicy): Match =>
  declared404(s, p) === false ? NOT_DECLARED : undefined;

// A 404 on a declared endpoint for a request that named a session: the session is gone, the endpoint is not.
export const notFoundSession = (s: Signals, p: ServerPolicy): Match =>
  s.hasSession && declared404(s, p) === true ? SESSION_GONE : undefined;

export const notFoundDeclared = (s: Signals, p: ServerPolicy): Match =>
  declared404(s, p) === true ? DECLARED : undefined;

function byStatus(rule: string, bucket: 'refusal' | 'transient', kinds: [number, Kind][]) {
  return new Map(kinds.map(([status, kind]) => [status, outcome(rule, bucket, kind, 'http_status')]));
}

const REPAIR = byStatus('http.request_repair', 'refusal', [
  [400, 'invalid_request'],
  [401, 'unauthenticated'],
  [403, 'forbidden'],
  [406, 'media_type_not_acceptable'],
  [409, 'conflict'],
  [413, 'payload_too_large'],
  [415, 'media_type_unsupported'],
]);

export function httpRequestRepair(s: Signals): Match {
  return s.status === undefined ? undefined : REPAIR.get(s.status);
}

const RATE_LIMITED = outcome('http.429', 'throttled', 'rate_limited', 'http_status');

export function tooManyRequests(s: Signals): Match {
  return s.status === 429 ? RATE_LIMITED : undefined;
}

const SERVER = byStatus('http.5xx', 'transient', [
  [502, 'upstream_error'],
  [503, 'unavailable'],
  [504, 'upstream_timeout'],
]);
const OTHER_5XX = outcome('http.5xx', 'transient', 'server_error', 'http_status');

export function serverError(s: Signals): Match {
  const status = s.status;
  if (status === undefined || status < 500 || status > 599) return undefined;
  return SERVER.get(status) ?? OTHER_5XX;
}

const TIMED_OUT = outcome('timeout', 'transient', 'timeout', 'timeout');
const CLIENT_CLOSED = outcome('timeout', 'transient', 'timeout', 'http_status');

/**
 * The client gave up waiting: it says so (`timeout`), or a proxy logged nginx's 499, "client closed request", the
 * only trace in an access log of a request the client abandoned (the corpus's aborted `slow_report`).
 */
export function timedOut(s: Signals): Match {
  if (s.timeout) return TIMED_OUT;
  return s.status === 499 ? CLIENT_CLOSED : undefined;
}
