import { INSTANT_RANGE, instantOfMs, readIsoInstant } from './instant.ts';
import { retryAfterSeconds } from './retry-after.ts';
import { storableText } from './storable-text.ts';

/**
 * One line of a federation log: one request as seen by one observer, with its outcome (DOMAIN.md section 2).
 *
 * A line real software writes is never turned away. Only what makes a line an event at all is required (`ts`,
 * `source`, `server`, and `client` for a client's record); a line without them is rejected with a code and a fix.
 * Every other member is used when it has a shape we can read and otherwise dropped with a warning, so that an
 * odd detail (a `latencyMs` string, a `status` of 1200) never costs the event. `null` is "not given" everywhere.
 * A frame that is not an object (`null` on a notification's 202, a batch array, a string) is "no frame".
 *
 * Hand-written rather than a schema: every member has its own fallback, and this runs for every line on the
 * ingest hot path.
 */
export type Frame = Record<string, unknown>;

export interface HttpFacts {
  method?: string;
  path?: string;
  status?: number;
  /** Seconds after `ts`: a number, or the header's text (delta-seconds or an HTTP-date) read relative to `ts`. */
  retryAfter?: number;
  /**
   * The `X-Request-Id` a proxy gave the request (nginx `$request_id`, Envoy's own), as the client read it from the
   * answer or the proxy logged it: the surest join of a client's record to the proxy's (DOMAIN.md section 2).
   */
  requestId?: string;
  /** The W3C `traceparent` header the request carried: the other join, for requests that never saw an answer. */
  traceparent?: string;
  /**
   * MCP 2026-07-28's request headers (DOMAIN.md sections 9 and 10), as a proxy logs them: `Mcp-Method` (the
   * JSON-RPC method), `Mcp-Name` (the tool, prompt or resource it names) and `MCP-Protocol-Version`. A line without
   * a request frame reads its method, its name and its era from them.
   */
  mcpMethod?: string;
  mcpName?: string;
  protocolVersion?: string;
}

/**
 * A record that is no request with a known outcome (ADR 18): `server_event`, something the server or a bridge did
 * outside a request (a stderr line, an exit, a connect), stored but not counted as a request; `outcome_unknown`, a
 * request its log shows without an outcome (a blind spot, never a success); `connection`, a connection attempt a
 * lifecycle log shows without its frames (a host starting a server, then "connected", or a timeout or an exit
 * before it was): counted, connected or not (`timeout: true`), and a connect for the reconnect loops (ADR 19).
 */
export const RECORD_KINDS = ['server_event', 'outcome_unknown', 'connection'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** A read event with its timestamp resolved to epoch milliseconds. */
export interface LensEvent {
  id?: string;
  ts: number;
  source: 'client' | 'proxy';
  client?: string;
  server: string;
  session?: string;
  protocol: 'mcp' | 'a2a';
  http?: HttpFacts;
  request?: Frame;
  response?: Frame;
  latencyMs?: number;
  timeout?: boolean;
  discoveryRead?: boolean;
  record?: RecordKind;
  /** The log format the record was read from (`claude-desktop`, `mcp-remote`, ...); absent for native NDJSON. */
  format?: string;
}

export const LINE_ERROR_CODES = [
  'invalid_json',
  'not_an_object',
  'missing_field',
  'invalid_field',
  'too_deep',
  // An access-log line (shared/proxy-logs): not a line of the format asked for, or one that names no time.
  'not_the_format',
  'no_timestamp',
  // A host log's line longer than its reader reads (shared/host-logs): said, not held in memory.
  'line_too_long',
] as const;
export type LineErrorCode = (typeof LINE_ERROR_CODES)[number];

export interface LineError {
  code: LineErrorCode;
  /** Dotted path of the offending member, when one member is at fault. */
  field?: string;
  message: string;
}

/** A member that was dropped (or read differently) while the event itself was kept. */
export interface FieldWarning {
  field: string;
  message: string;
}

export type ParseResult = { ok: true; event: LensEvent; warnings: FieldWarning[] } | { ok: false; error: LineError };

const NAME_MAX = 200;
const ID_MAX = 256;
const SESSION_MAX = 512;
const METHOD_MAX = 16;
const FORMAT_MAX = 64;
const PATH_MAX = 4096;
/** A request id or traceparent longer than this is no header a proxy wrote (a traceparent is 55 characters). */
const HEADER_ID_MAX = 256;
/** The headers' texts `http` may carry (HttpFacts). */
const HEADER_TEXTS = ['requestId', 'traceparent', 'mcpMethod', 'mcpName', 'protocolVersion'] as const;
/** `Mcp-Name` carries a resource's URI, which may be long. */
const HEADER_NAME_MAX = 2048;
/**
 * How deeply a line may nest. Real frames nest a few levels (a tool's JSON Schema perhaps twenty); thousands of
 * levels are an attack on every later reader of the line, so such a line is refused whole.
 */
export const MAX_NESTING = 128;

type Json = Record<string, unknown>;

/** Validates one already-decoded value as an event. */
export function validateEvent(value: unknown): ParseResult {
  if (!isObject(value)) {
    return { ok: false, error: { code: 'not_an_object', message: 'each line must be one JSON object (an event)' } };
  }
  if (nestsDeeperThan(value, MAX_NESTING)) {
    return {
      ok: false,
      error: {
        code: 'too_deep',
        message: `the event nests deeper than ${MAX_NESTING} levels; no JSON-RPC frame needs that many`,
      },
    };
  }
  const ts = readTs(value.ts);
  if (typeof ts !== 'number') return { ok: false, error: ts };
  const source = value.source;
  if (source !== 'client' && source !== 'proxy') {
    return { ok: false, error: required('source', value.source, 'must be "client" or "proxy"') };
  }
  const server = readName(value.server);
  if (server === undefined) return { ok: false, error: required('server', value.server, nameRule('server')) };
  const client = readName(value.client);
  if (source === 'client' && client === undefined) {
    return {
      ok: false,
      error:
        value.client === undefined || value.client === null
          ? { code: 'missing_field', field: 'client', message: '"client" is required when source is "client"' }
          : { code: 'invalid_field', field: 'client', message: `"client": ${nameRule('client')}` },
    };
  }
  const warnings: FieldWarning[] = [];
  const event: LensEvent = { ts, source, server, protocol: 'mcp' };
  if (client !== undefined) event.client = client;
  else if (!absent(value.client)) warnings.push({ field: 'client', message: `dropped: ${nameRule('client')}` });
  readOptional(value, event, warnings);
  noteRemovedNul(value, warnings);
  return { ok: true, event, warnings };
}

/** The members of a line, and of its `http`, that are stored as text without NUL, in the order warnings name them. */
const NUL_FREE_MEMBERS = ['server', 'client', 'id', 'session'] as const;
const NUL_FREE_HTTP_MEMBERS = ['method', 'path', ...HEADER_TEXTS] as const;

/**
 * Names and paths are stored without NUL (PostgreSQL text cannot hold one); say so where one was removed. Reads the
 * members in place: a list of [field, value] pairs built for every line was ~1% of ingest's CPU, in allocations.
 */
function noteRemovedNul(value: Json, warnings: FieldWarning[]): void {
  for (const field of NUL_FREE_MEMBERS) {
    if (holdsNul(value[field])) warnings.push({ field, message: 'NUL characters removed' });
  }
  const http = value.http;
  if (!isObject(http)) return;
  for (const field of NUL_FREE_HTTP_MEMBERS) {
    if (holdsNul(http[field])) warnings.push({ field: `http.${field}`, message: 'NUL characters removed' });
  }
}

function holdsNul(text: unknown): boolean {
  return typeof text === 'string' && text.includes('\u0000');
}

/** Decodes and validates one NDJSON line. */
export function parseEventLine(line: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: {
        code: 'invalid_json',
        message: `not valid JSON (${detail}); each line must be one complete JSON object`,
      },
    };
  }
  return validateEvent(value);
}

/**
 * A member dropped with the rule it broke. Module-level, not a closure made per line: under tsx (esbuild's keepNames)
 * each closure made in a hot function also costs a `__name` call, ~2% of ingest's CPU with readHttp's.
 */
function drop(warnings: FieldWarning[], field: string, rule: string): void {
  warnings.push({ field, message: `dropped: ${rule}` });
}

const FLAGS = ['timeout', 'discoveryRead'] as const;

function readOptional(value: Json, event: LensEvent, warnings: FieldWarning[]): void {
  const id = readId(value.id);
  if (id !== undefined) event.id = id;
  else if (!absent(value.id)) drop(warnings, 'id', `must be a non-empty string of at most ${ID_MAX} characters`);
  const session = readText(value.session, SESSION_MAX);
  if (session !== undefined) event.session = session;
  else if (!absent(value.session)) drop(warnings, 'session', `must be a string of at most ${SESSION_MAX} characters`);
  if (value.protocol === 'a2a') event.protocol = 'a2a';
  else if (!absent(value.protocol) && value.protocol !== 'mcp') {
    warnings.push({ field: 'protocol', message: 'must be "mcp" or "a2a"; read as "mcp"' });
  }
  if (isObject(value.http)) {
    const http = readHttp(value.http, event.ts, warnings);
    if (http !== undefined) event.http = http;
  } else if (!absent(value.http)) drop(warnings, 'http', 'must be an object');
  if (isObject(value.request)) event.request = value.request;
  else if (!absent(value.request))
    warnings.push({ field: 'request', message: 'not a JSON-RPC object: read as no frame' });
  if (isObject(value.response)) event.response = value.response;
  else if (!absent(value.response))
    warnings.push({ field: 'response', message: 'not a JSON-RPC object: read as no frame' });
  const latency = value.latencyMs;
  if (isNonNegative(latency)) event.latencyMs = latency;
  else if (!absent(latency)) drop(warnings, 'latencyMs', 'must be a non-negative number of milliseconds');
  for (const field of FLAGS) {
    const flag = value[field];
    if (typeof flag === 'boolean') event[field] = flag;
    else if (!absent(flag)) drop(warnings, field, 'must be true or false');
  }
  if ((RECORD_KINDS as readonly unknown[]).includes(value.record)) event.record = value.record as RecordKind;
  else if (!absent(value.record)) drop(warnings, 'record', `must be one of ${RECORD_KINDS.join(', ')}`);
  const format = readText(value.format, FORMAT_MAX);
  if (format !== undefined && format.length > 0) event.format = format;
  else if (!absent(value.format))
    drop(warnings, 'format', `must be a non-empty string of at most ${FORMAT_MAX} characters`);
}

function readHttp(http: Json, ts: number, warnings: FieldWarning[]): HttpFacts | undefined {
  const facts: HttpFacts = {};
  const method = readText(http.method, METHOD_MAX);
  if (method !== undefined && method.length > 0) facts.method = method;
  else if (!absent(http.method))
    drop(warnings, 'http.method', `must be a non-empty string of at most ${METHOD_MAX} characters`);
  const path = readText(http.path, PATH_MAX);
  if (path !== undefined) facts.path = path;
  else if (!absent(http.path)) drop(warnings, 'http.path', `must be a string of at most ${PATH_MAX} characters`);
  const status = http.status;
  if (Number.isInteger(status) && (status as number) >= 0 && (status as number) <= 999) facts.status = status as number;
  else if (!absent(status)) drop(warnings, 'http.status', 'must be an HTTP status code (an integer from 0 to 999)');
  const retryAfter = retryAfterSeconds(http.retryAfter, ts);
  if (retryAfter !== undefined) facts.retryAfter = retryAfter;
  else if (!absent(http.retryAfter)) {
    drop(
      warnings,
      'http.retryAfter',
      'must be seconds (a number or "120") or an HTTP-date ("Wed, 21 Oct 2026 07:28:00 GMT")',
    );
  }
  for (const field of HEADER_TEXTS) {
    const max = field === 'mcpName' ? HEADER_NAME_MAX : HEADER_ID_MAX;
    const text = readText(http[field], max);
    if (text !== undefined && text.length > 0) facts[field] = text;
    else if (!absent(http[field]))
      drop(warnings, `http.${field}`, `must be a non-empty string of at most ${max} characters`);
  }
  return Object.keys(facts).length > 0 ? facts : undefined;
}

function readTs(value: unknown): number | LineError {
  const reading =
    typeof value === 'number' ? instantOfMs(value) : typeof value === 'string' ? readIsoInstant(value, ZONED) : null;
  if (reading?.ok) return reading.ms;
  if (reading !== null) {
    const shown = typeof value === 'string' ? value.slice(0, 40) : String(value);
    return { code: 'invalid_field', field: 'ts', message: `"ts": ${shown} is no real instant: ${reading.reason}` };
  }
  if (absent(value)) return { code: 'missing_field', field: 'ts', message: '"ts" is required' };
  return {
    code: 'invalid_field',
    field: 'ts',
    message: `"ts": must be an ISO 8601 date-time with a zone (Z or ±hh:mm), or epoch milliseconds, ${INSTANT_RANGE}`,
  };
}

const ZONED = { zoned: true };

function required(field: string, value: unknown, rule: string): LineError {
  return absent(value)
    ? { code: 'missing_field', field, message: `"${field}" is required` }
    : { code: 'invalid_field', field, message: `"${field}": ${rule}` };
}

function nameRule(field: string): string {
  return `"${field}" must be a non-empty string of at most ${NAME_MAX} characters`;
}

/** A name: text without NUL (PostgreSQL text cannot hold one, and no name means one), not empty once without. */
function readName(value: unknown): string | undefined {
  const name = readText(value, NAME_MAX);
  return name === undefined || name.length === 0 ? undefined : name;
}

function readId(value: unknown): string | undefined {
  // Producers that number their lines write the id as a number; it names the event as well as its text does.
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  const id = readText(value, ID_MAX);
  return id === undefined || id.length === 0 ? undefined : id;
}

/** Text as both stores keep it: well-formed (a lone surrogate becomes U+FFFD) and without NUL. */
function readText(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = storableText(value);
  return text.length <= max ? text : undefined;
}

/**
 * Whether `node`, an array or object at level 1, holds arrays or objects nested more than `limit` levels deep. The
 * recursion stops at `limit` levels, so no input overflows the stack; it allocates nothing, where a stack of
 * [node, depth] pairs cost a pair for every object of every line.
 */
function nestsDeeperThan(node: object, limit: number): boolean {
  if (limit < 1) return true;
  if (Array.isArray(node)) {
    for (const child of node) {
      if (typeof child === 'object' && child !== null && nestsDeeperThan(child, limit - 1)) return true;
    }
  } else {
    for (const key in node) {
      const child = (node as Json)[key];
      if (typeof child === 'object' && child !== null && nestsDeeperThan(child, limit - 1)) return true;
    }
  }
  return false;
}

function isNonNegative(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function absent(value: unknown): boolean {
  return value === undefined || value === null;
}
