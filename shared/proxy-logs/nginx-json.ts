import type { FieldWarning } from '../event.ts';
import { instantOfMs, readIsoInstant } from '../instant.ts';
import { readMcpHeaders } from '../mcp-headers.ts';
import {
  chomp,
  isBlank,
  isToken,
  jsonText,
  keepText,
  type ProxyFacts,
  type ProxyLineOptions,
  type ProxyLineResult,
  parseJsonObject,
  quote,
  readStatus,
  reject,
  secondsToMs,
  toEvent,
} from './common.ts';

/**
 * One line of an nginx JSON access log (`log_format name escape=json '{...}'`) as a native event.
 *
 * The members read, by nginx variable name (the canonical names; `NginxJsonOptions.fields` maps them to the
 * operator's own keys):
 *
 * | variable | becomes |
 * |---|---|
 * | `msec` (seconds with a millisecond fraction), else `time_iso8601` | `ts`, less `request_time`: the request's start |
 * | `request_method` | `http.method` |
 * | `request_uri` (as sent, with its query), else `uri` | `http.path` |
 * | `status` | `http.status` |
 * | `sent_http_retry_after` | `http.retryAfter`, the header's text |
 * | `request_time` (seconds) | `latencyMs` |
 * | `http_mcp_session_id` | `session` |
 * | `request_id`, `http_traceparent` | `http.requestId`, `http.traceparent` |
 * | `http_mcp_method`, `http_mcp_name`, `http_mcp_protocol_version` | `http.mcpMethod`, `http.mcpName` (decoded), `http.protocolVersion` |
 * | `upstream_status`, `http_user_agent`, `remote_addr` | `proxy.*` |
 * | `http_host`, else `host` | `proxy.host`, and the server's name when no option names one |
 *
 * `sent_http_mcp_session_id` is not read: a server hands out a session id on refusals too (the corpus's MCP server
 * sends one with every 400 "Missing session ID"), and such an id opens nothing. The session is the id the request
 * carried.
 *
 * `ts`: nginx writes `$msec` and `$time_iso8601` when it logs, at the request's end. Less `$request_time` it is the
 * moment the request arrived, which is what a client's `ts` (its send time) and Envoy's `%START_TIME%` mean; the
 * recorded corpus agrees to within 11 ms, where the end is up to 0.7 s late (an SSE GET is logged when the stream
 * closes). The end stays in `proxy.loggedAt`.
 *
 * The `Mcp-Method`, `Mcp-Name` and `MCP-Protocol-Version` request headers (MCP 2026-07-28; `MCP-Protocol-Version`
 * also on 2025-era requests after `initialize`) give a line without a body its JSON-RPC method, the tool, prompt,
 * resource or task it names, and its era (DOMAIN.md sections 9 and 10). `Mcp-Name` is decoded where the client
 * Base64-encoded it (shared/mcp-headers.ts).
 *
 * nginx writes an empty string (under `escape=json`) or `-` for a variable that is not set: both are "absent".
 */
export const NGINX_JSON_FIELDS = [
  'time_iso8601',
  'msec',
  'request_method',
  'request_uri',
  'uri',
  'status',
  'request_time',
  'sent_http_retry_after',
  'http_mcp_session_id',
  'request_id',
  'http_traceparent',
  'http_mcp_method',
  'http_mcp_name',
  'http_mcp_protocol_version',
  'upstream_status',
  'http_user_agent',
  'remote_addr',
  'http_host',
  'host',
] as const;

export type NginxJsonField = (typeof NGINX_JSON_FIELDS)[number];

export interface NginxJsonOptions extends ProxyLineOptions {
  /**
   * The operator's key for a variable, where the `log_format` names it otherwise:
   * `{ fields: { msec: 'ts', request_uri: 'path', http_mcp_session_id: 'mcp_session' } }`. A variable not named here
   * is looked up under its own name.
   */
  fields?: Partial<Record<NginxJsonField, string>>;
}

export function nginxJsonLineToEvent(line: string, options: NginxJsonOptions = {}): ProxyLineResult {
  if (isBlank(line)) return reject('empty_line', 'the line is empty');
  const object = parseJsonObject(chomp(line));
  if (object === undefined) {
    return reject(
      'not_the_format',
      'not a JSON object; an nginx JSON access log has one object per line (log_format ... escape=json)',
    );
  }
  return nginxJsonObjectToEvent(object, options);
}

/** The same, for a line already parsed. */
export function nginxJsonObjectToEvent(
  object: Record<string, unknown>,
  options: NginxJsonOptions = {},
): ProxyLineResult {
  // Module-level helpers, no closures: this runs once per line.
  const keys = options.fields === undefined ? DEFAULT_KEYS : keysOf(options.fields);
  const warnings: FieldWarning[] = [];

  const time = readTime(pick(object, keys.msec), pick(object, keys.time_iso8601), keys, warnings);
  if (typeof time === 'string') return reject('no_timestamp', time);
  if (time === undefined) {
    return reject(
      'no_timestamp',
      `no time on the line: "${keys.msec}" (seconds with milliseconds) or "${keys.time_iso8601}" is needed; ` +
        'name the keys your log_format uses in the reader\'s "fields" option',
    );
  }
  const requestTime = pick(object, keys.request_time);
  const latencyMs = secondsToMs(requestTime);
  if (latencyMs === undefined && jsonText(requestTime) !== undefined) {
    warnings.push({
      field: 'latencyMs',
      message: `"${keys.request_time}" is not seconds: ${quote(String(requestTime))}`,
    });
  }
  const method = readMethod(text(object, keys.request_method), warnings);
  const path = text(object, keys.request_uri) ?? text(object, keys.uri);
  const proxy: ProxyFacts = {
    requestId: keepText(text(object, keys.request_id), 'http.requestId', warnings),
    traceparent: keepText(text(object, keys.http_traceparent), 'http.traceparent', warnings),
    upstreamStatus: keepText(text(object, keys.upstream_status), 'proxy.upstreamStatus', warnings),
    userAgent: keepText(text(object, keys.http_user_agent), 'proxy.userAgent', warnings),
    remoteAddr: keepText(text(object, keys.remote_addr), 'proxy.remoteAddr', warnings),
    loggedAt: time,
  };
  if (method === undefined && path === undefined) {
    warnings.push({
      field: 'http',
      message: 'no request method or path on the line (a malformed request, or renamed keys)',
    });
  }
  return toEvent(
    {
      ts: latencyMs !== undefined && latencyMs <= time ? time - latencyMs : time,
      method,
      path,
      status: readStatus(pick(object, keys.status), 'http.status', warnings),
      retryAfter: text(object, keys.sent_http_retry_after),
      latencyMs,
      session: text(object, keys.http_mcp_session_id),
      ...readMcpHeaders(
        {
          method: text(object, keys.http_mcp_method),
          name: text(object, keys.http_mcp_name),
          protocolVersion: text(object, keys.http_mcp_protocol_version),
        },
        warnings,
      ),
      host: keepText(text(object, keys.http_host) ?? text(object, keys.host), 'proxy.host', warnings),
      proxy,
    },
    options,
    warnings,
  );
}

type Keys = Record<NginxJsonField, string>;

const DEFAULT_KEYS: Keys = Object.fromEntries(NGINX_JSON_FIELDS.map((field) => [field, field])) as Keys;

/** Each variable's key: the operator's where `fields` names one, else its own name. */
function keysOf(fields: Partial<Keys>): Keys {
  const keys = { ...DEFAULT_KEYS };
  for (const field of NGINX_JSON_FIELDS) {
    const named = fields[field];
    if (typeof named === 'string') keys[field] = named;
  }
  return keys;
}

/** An own member: a key named `constructor` or `__proto__` is data, never the prototype's. */
function pick(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** A method is a token; anything else (a scanner's bytes) is left absent, with a warning. */
function readMethod(method: string | undefined, warnings: FieldWarning[]): string | undefined {
  if (method === undefined || isToken(method)) return method;
  warnings.push({ field: 'http.method', message: `not an HTTP method: ${quote(method)}; left absent` });
  return undefined;
}

function text(object: Record<string, unknown>, key: string): string | undefined {
  return jsonText(pick(object, key));
}

/**
 * The log-write time in epoch milliseconds: `msec` where it reads, else `time_iso8601` (whole seconds). Undefined
 * when the line has neither; why not, when what it has is no real instant (shared/instant.ts).
 */
function readTime(msec: unknown, iso: unknown, keys: Keys, warnings: FieldWarning[]): number | string | undefined {
  const seconds = secondsToMs(msec);
  const fromMsec = seconds === undefined ? undefined : instantOfMs(seconds);
  if (fromMsec?.ok) return fromMsec.ms;
  if (jsonText(msec) !== undefined) {
    const why = fromMsec === undefined ? 'is not seconds' : `is no real instant (${fromMsec.reason})`;
    warnings.push({
      field: 'ts',
      message: `"${keys.msec}" ${why}: ${quote(String(msec))}; read "${keys.time_iso8601}"`,
    });
  }
  const isoText = jsonText(iso);
  const fromIso = isoText === undefined ? null : readIsoInstant(isoText, ZONED);
  if (fromIso?.ok) return fromIso.ms;
  if (fromIso)
    return `the time ${quote(String(isoText))} ("${keys.time_iso8601}") is no real instant: ${fromIso.reason}`;
  if (fromMsec) return `the time ${quote(String(msec))} ("${keys.msec}") is no real instant: ${fromMsec.reason}`;
  return undefined;
}

const ZONED = { zoned: true };
