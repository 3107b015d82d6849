import type { FieldWarning } from '../event.ts';
import type { McpHeaderFacts } from '../mcp-headers.ts';
import { storableText } from '../storable-text.ts';

/**
 * What every reverse-proxy access-log reader shares: the shape of the native event it makes (DOMAIN.md section 2,
 * the plain object `validateEvent` takes), the options that name the server, and the small text helpers.
 *
 * An access log carries method, path, status and timing, sometimes a session id; never a JSON-RPC body (section 9).
 * What only the proxy knows (its request id, the upstream's status, the user agent) goes in a `proxy` member, which
 * `validateEvent` leaves alone: it reads only the members it knows.
 */

export type ProxyProtocol = 'mcp' | 'a2a';

/**
 * Names the server of one line from its host (`Host` / `:authority`, when the format logs one) and its path. Return
 * `undefined` for a line it does not know; return `{ server, protocol }` to name the protocol as well.
 */
export type ServerOf = (
  host: string | undefined,
  path: string | undefined,
) => string | { server: string; protocol?: ProxyProtocol } | undefined;

/** Options every format takes. */
export interface ProxyLineOptions {
  /** The server of every line this mapping does not name (one log per server: `"release-desk"`). */
  server?: string;
  /** The server of one line, from its host and path; asked first. */
  serverOf?: ServerOf;
  /** The native `protocol` of each line (absent: `validateEvent` reads `"mcp"`). */
  protocol?: ProxyProtocol;
  /**
   * The client of every line. Without it a line's client is its user agent, else its remote address: what an
   * access log knows of who sent the request (proxy-only traffic still has storms and avoidable requests per client).
   */
  client?: string;
}

/**
 * What the proxy saw, as a reader finds it. `requestId` and `traceparent` become the native `http.requestId` and
 * `http.traceparent` (a client records them too: they join its record to the proxy's); the rest stays in the
 * `proxy` member, which `validateEvent` leaves alone.
 */
export interface ProxyFacts {
  /** nginx `$request_id`, Envoy `%REQ(X-REQUEST-ID)%`: joins the proxy's record to the client's (`X-Request-Id`). */
  requestId?: string;
  /** The W3C `traceparent` request header, where the format logs it. */
  traceparent?: string;
  /** nginx `$upstream_status` as written: `"200"`, or `"502, 504"` when several upstreams were tried. */
  upstreamStatus?: string;
  userAgent?: string;
  remoteAddr?: string;
  /** `X-Forwarded-For` as the request carried it. */
  forwardedFor?: string;
  /** The request's `Host` / `:authority`. */
  host?: string;
  /** `HTTP/1.1`, `HTTP/2`. */
  protocol?: string;
  /** Envoy `%UPSTREAM_HOST%`. */
  upstreamHost?: string;
  /** Envoy `%RESPONSE_FLAGS%` (`UF`, `NR`, `DC`, ...). */
  responseFlags?: string;
  /** Envoy `%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%`, milliseconds. */
  upstreamServiceTimeMs?: number;
  /** nginx: when the line was written (the end of the request), epoch milliseconds; `ts` is the request's start. */
  loggedAt?: number;
  /** The request line as logged, kept only when it is not `METHOD target [HTTP/x.y]` (a scanner's bytes, `-`). */
  requestLine?: string;
}

/** `mcpMethod`, `mcpName`, `protocolVersion`: MCP 2026-07-28's request headers, where the format logs them. */
export interface ProxyHttp extends McpHeaderFacts {
  method?: string;
  path?: string;
  status?: number;
  /** The `Retry-After` header's own text; `validateEvent` reads it against `ts`. */
  retryAfter?: string;
  requestId?: string;
  traceparent?: string;
}

/** The native event a proxy line becomes, before `validateEvent`. */
export interface ProxyEventValue {
  /** Epoch milliseconds: the request's start where the line says when it started. */
  ts: number;
  source: 'proxy';
  server: string;
  client?: string;
  protocol?: ProxyProtocol;
  session?: string;
  http?: ProxyHttp;
  latencyMs?: number;
  proxy?: ProxyFacts;
}

/**
 * Why a line is no event at all. Anything else a line carries wrong costs that member, with a warning, never the
 * line.
 * - `empty_line`: nothing but whitespace.
 * - `not_the_format`: not a line of the format asked for (another format, a truncated write, a stray message).
 * - `no_timestamp`: the line's format, but no time can be read from it, and an event needs one.
 */
export type ProxyLineErrorCode = 'empty_line' | 'not_the_format' | 'no_timestamp';

export interface ProxyLineError {
  code: ProxyLineErrorCode;
  message: string;
}

export type ProxyLineResult =
  | { ok: true; value: ProxyEventValue; warnings: FieldWarning[] }
  | { ok: false; error: ProxyLineError };

export function reject(code: ProxyLineErrorCode, message: string): ProxyLineResult {
  return { ok: false, error: { code, message } };
}

/** How long a proxy-only text may be; a longer one (a 10 KB user agent) is cut, with a warning. */
export const PROXY_TEXT_MAX = 1024;
/** `validateEvent`'s limit for a name: a longer host cannot name the server, a longer user agent is cut. */
const SERVER_NAME_MAX = 200;

/** nginx writes `-` for an unset variable (an empty string under `escape=json`); Envoy writes `-` or `null`. */
export function present(text: string | undefined): string | undefined {
  return text === undefined || text === '' || text === '-' ? undefined : text;
}

/** A JSON member read as text: strings as they are, numbers as written; anything else is "absent". */
export function jsonText(value: unknown): string | undefined {
  if (typeof value === 'string') return present(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** An own member of a parsed JSON object: a key named `constructor` or `__proto__` is data, never the prototype's. */
export function member(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a line as one JSON object, or `undefined`. */
export function parseJsonObject(line: string): Record<string, unknown> | undefined {
  const start = firstNonSpace(line);
  if (line.charCodeAt(start) !== 123 /* { */) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function firstNonSpace(line: string): number {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  return i;
}

/** A line without its line ending: callers may pass what they read with or without it. */
export function chomp(line: string): string {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 10 || line.charCodeAt(end - 1) === 13)) end--;
  return end === line.length ? line : line.slice(0, end);
}

export function isBlank(line: string): boolean {
  return line.trim().length === 0;
}

const DECIMAL = /^\d+(\.\d+)?$/;

/** Seconds with a fraction (`"1796179362.366"`, `0.004`) as whole milliseconds, read from the text. */
export function secondsToMs(value: unknown): number | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) && value >= 0 ? String(value) : '') : value;
  if (typeof text !== 'string' || !DECIMAL.test(text)) return undefined;
  const dot = text.indexOf('.');
  if (dot === -1) return Number(text) * 1000;
  // From the digits, not from a float: 1796179362.366 * 1000 is not 1796179362366 in binary.
  const fraction = `${text.slice(dot + 1, dot + 4)}000`.slice(0, 3);
  const rest = text.length > dot + 4 ? Number(`0.${text.slice(dot + 4)}`) : 0;
  return Number(text.slice(0, dot)) * 1000 + Number(fraction) + Math.round(rest);
}

/** A whole non-negative number of milliseconds (Envoy's `%DURATION%`), from a number or its text. */
export function wholeMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
  if (typeof value !== 'string' || !DECIMAL.test(value)) return undefined;
  return Math.round(Number(value));
}

/** An HTTP status from a number or its text; `undefined` with a warning for anything else. */
export function readStatus(value: unknown, field: string, warnings: FieldWarning[]): number | undefined {
  const text = jsonText(value);
  if (text === undefined) return undefined;
  if (!/^\d{1,3}$/.test(text)) {
    warnings.push({ field, message: `not an HTTP status code: ${quote(text)}; left absent` });
    return undefined;
  }
  const status = Number(text);
  if (status === 0) {
    // nginx 000 / Envoy 0: no response was begun (Envoy: the downstream client went away). 0 would read as a success.
    warnings.push({ field, message: 'status 0: no response was sent (the client went away first); left absent' });
    return undefined;
  }
  return status;
}

/**
 * Proxy-only text as both stores keep text (well-formed, no NUL), at most `PROXY_TEXT_MAX` characters. What had to
 * change is said in a warning.
 */
export function keepText(text: string | undefined, field: string, warnings: FieldWarning[]): string | undefined {
  if (text === undefined) return undefined;
  if (text.includes('\u0000')) warnings.push({ field, message: 'NUL characters removed' });
  let kept = storableText(text);
  if (kept.length > PROXY_TEXT_MAX) {
    warnings.push({ field, message: `cut to ${PROXY_TEXT_MAX} of its ${kept.length} characters` });
    kept = kept.slice(0, PROXY_TEXT_MAX);
  }
  return kept.length > 0 ? kept : undefined;
}

/** Shortened and quoted, for a warning about text from the line. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/**
 * The line's server: what `serverOf` names for its host and path, else `options.server`, else its host, else
 * `"unknown"`; the last two with a warning, since they name a proxy's listener rather than a server.
 */
export function resolveServer(
  options: ProxyLineOptions,
  host: string | undefined,
  path: string | undefined,
  warnings: FieldWarning[],
): { server: string; protocol?: ProxyProtocol } {
  const mapped = options.serverOf?.(host, path);
  if (typeof mapped === 'string' && mapped.length > 0) return { server: mapped };
  if (typeof mapped === 'object' && mapped !== null && typeof mapped.server === 'string' && mapped.server.length > 0) {
    return mapped.protocol === undefined
      ? { server: mapped.server }
      : { server: mapped.server, protocol: mapped.protocol };
  }
  if (options.server !== undefined && options.server.length > 0) return { server: options.server };
  const where = `${host === undefined ? 'no host' : `host ${quote(host)}`}, path ${path === undefined ? '(none)' : quote(path)}`;
  if (host !== undefined && host.length <= SERVER_NAME_MAX && !host.includes('\u0000')) {
    warnings.push({ field: 'server', message: `no server configured for ${where}: named after its host` });
    return { server: host };
  }
  warnings.push({ field: 'server', message: `no server configured for ${where}: named "unknown"` });
  return { server: 'unknown' };
}

/** The parts one reader found, before they become the native object. */
export interface ReadLine extends McpHeaderFacts {
  ts: number;
  method?: string;
  path?: string;
  status?: number;
  retryAfter?: string;
  latencyMs?: number;
  session?: string;
  host?: string;
  proxy: ProxyFacts;
}

/** The native event object: only the members that have a value, as `validateEvent` expects them. */
export function toEvent(read: ReadLine, options: ProxyLineOptions, warnings: FieldWarning[]): ProxyLineResult {
  const named = resolveServer(options, read.host, read.path, warnings);
  const value: ProxyEventValue = { ts: read.ts, source: 'proxy', server: named.server };
  // A user agent may run past what a name can be; its start names the client well enough.
  const client = options.client ?? (read.proxy.userAgent ?? read.proxy.remoteAddr)?.slice(0, SERVER_NAME_MAX);
  if (client !== undefined) value.client = client;
  const protocol = named.protocol ?? options.protocol;
  if (protocol !== undefined) value.protocol = protocol;
  if (read.session !== undefined) value.session = read.session;
  const http: ProxyHttp = {};
  if (read.method !== undefined) http.method = read.method;
  if (read.path !== undefined) http.path = read.path;
  if (read.status !== undefined) http.status = read.status;
  if (read.retryAfter !== undefined) http.retryAfter = read.retryAfter;
  if (read.proxy.requestId !== undefined) http.requestId = read.proxy.requestId;
  if (read.proxy.traceparent !== undefined) http.traceparent = read.proxy.traceparent;
  if (read.mcpMethod !== undefined) http.mcpMethod = read.mcpMethod;
  if (read.mcpName !== undefined) http.mcpName = read.mcpName;
  if (read.protocolVersion !== undefined) http.protocolVersion = read.protocolVersion;
  if (Object.keys(http).length > 0) value.http = http;
  if (read.latencyMs !== undefined) value.latencyMs = read.latencyMs;
  read.proxy.host = read.host;
  const proxy = definedOnly(read.proxy);
  if (proxy !== undefined) value.proxy = proxy;
  return { ok: true, value, warnings };
}

/** The facts kept in the `proxy` member (`requestId` and `traceparent` went to `http`). */
const PROXY_KEYS = [
  'upstreamStatus',
  'userAgent',
  'remoteAddr',
  'forwardedFor',
  'host',
  'protocol',
  'upstreamHost',
  'responseFlags',
  'upstreamServiceTimeMs',
  'loggedAt',
  'requestLine',
] as const satisfies readonly Exclude<keyof ProxyFacts, 'requestId' | 'traceparent'>[];

/** The facts that have a value (in one order, whatever the reader), or `undefined` when none has. */
function definedOnly(facts: ProxyFacts): ProxyFacts | undefined {
  let kept: Record<string, unknown> | undefined;
  for (const key of PROXY_KEYS) {
    const value = facts[key];
    if (value === undefined) continue;
    kept ??= {};
    kept[key] = value;
  }
  return kept as ProxyFacts | undefined;
}

/** An RFC 9110 token (a method name). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HTTP_VERSION = /^HTTP\/\d(\.\d)?$/;

/**
 * A request line, `METHOD target HTTP/x.y` (or HTTP/0.9's `METHOD target`), split; `undefined` for anything else
 * (a scanner's TLS bytes, `-`, a truncated line).
 */
export function splitRequestLine(text: string): { method: string; target: string; protocol?: string } | undefined {
  const first = text.indexOf(' ');
  if (first <= 0) return undefined;
  const last = text.lastIndexOf(' ');
  const method = text.slice(0, first);
  let target: string;
  let protocol: string | undefined;
  if (last === first) {
    target = text.slice(first + 1);
  } else {
    protocol = text.slice(last + 1);
    if (!HTTP_VERSION.test(protocol)) return undefined;
    target = text.slice(first + 1, last);
  }
  if (!TOKEN.test(method) || !isTarget(target)) return undefined;
  return protocol === undefined ? { method, target } : { method, target, protocol };
}

/** Visible ASCII or beyond, no spaces or control characters: what a request target may hold as logged. */
function isTarget(target: string): boolean {
  if (target.length === 0) return false;
  for (let i = 0; i < target.length; i++) {
    const c = target.charCodeAt(i);
    if (c <= 32 || c === 127) return false;
  }
  return true;
}

export function isToken(text: string): boolean {
  return TOKEN.test(text);
}
