import type { FieldWarning } from '../event.ts';
import { instantOfMs, readIsoInstant } from '../instant.ts';
import { readMcpHeaders } from '../mcp-headers.ts';
import {
  chomp,
  isBlank,
  jsonText,
  keepText,
  member,
  type ProxyLineOptions,
  type ProxyLineResult,
  parseJsonObject,
  present,
  quote,
  readStatus,
  reject,
  secondsToMs,
  toEvent,
  wholeMs,
} from './common.ts';

/**
 * Envoy access logs, as native events. No Envoy log was recorded for this project: what is read here is what
 * Envoy's documentation (configuration/observability/access_log/usage, "Default Format String" and "Format
 * Dictionaries") and the documented defaults of the projects that configure Envoy's JSON log say, nothing more.
 *
 * **Text**: Envoy's default format string, the one a file access log gets when it names no format:
 *
 *     [%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS%
 *     %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%"
 *     "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"
 *
 * (one line; the documentation wraps it). Envoy does not escape the quotes of a header it logs, so the quoted
 * fields are read from both ends: a `"` inside the user agent does not move the request id or the authority.
 *
 * **JSON**: Envoy itself has no default JSON format; `json_format` keys are the operator's. Read by default are
 * the keys of the two documented defaults, whichever the line has:
 * - Istio's (`EnvoyJSONLogFormatIstio`, what `accessLogEncoding: JSON` writes): `start_time`, `method`, `path`,
 *   `protocol`, `response_code`, `response_flags`, `duration`, `upstream_service_time`, `x_forwarded_for`,
 *   `user_agent`, `request_id`, `authority`, `upstream_host`, `downstream_remote_address`;
 * - Envoy Gateway's ("Proxy Access Logs", Default Access Log): the same but `x-envoy-origin-path`,
 *   `x-envoy-upstream-service-time`, `x-forwarded-for`, `user-agent`, `x-request-id`, `:authority`;
 * - and `x_request_id` / `x_envoy_upstream_service_time`, as Google Distributed Cloud's service-mesh access log
 *   documents them.
 * `EnvoyJsonOptions.fields` names other keys, by command operator. Values are strings under `json_format` and
 * numbers or `null` under `typed_json_format`; both are read. Unset values are `"-"`, `null`, or missing
 * (`omit_empty_values`).
 *
 * None of the documented formats logs `Mcp-Session-Id`, `traceparent`, `Retry-After` or MCP 2026-07-28's
 * `Mcp-Method`, `Mcp-Name` and `MCP-Protocol-Version`; they are read under the keys the README's `json_format` gives
 * them (`mcp_session_id`, `traceparent`, `retry_after`, `mcp_method`, `mcp_name`, `mcp_protocol_version`), or where
 * `fields` names others (`'REQ(MCP-SESSION-ID)'`, `'REQ(MCP-METHOD)'`, ...). Envoy's default text format logs none
 * of them.
 *
 * Both forms: `ts` is `%START_TIME%` (the request's start, with milliseconds), `latencyMs` is `%DURATION%`
 * (milliseconds, start to last byte out). `%RESPONSE_CODE%` 0 means no response was begun (the downstream client
 * disconnected): the status is left absent, with a warning, since 0 would read as a success.
 */

export const ENVOY_OPERATORS = [
  'START_TIME',
  'REQ(:METHOD)',
  'REQ(X-ENVOY-ORIGINAL-PATH?:PATH)',
  'PROTOCOL',
  'RESPONSE_CODE',
  'RESPONSE_FLAGS',
  'DURATION',
  'RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)',
  'REQ(X-FORWARDED-FOR)',
  'REQ(USER-AGENT)',
  'REQ(X-REQUEST-ID)',
  'REQ(:AUTHORITY)',
  'UPSTREAM_HOST',
  'DOWNSTREAM_REMOTE_ADDRESS',
  'REQ(MCP-SESSION-ID)',
  'REQ(TRACEPARENT)',
  'RESP(RETRY-AFTER)',
  'REQ(MCP-METHOD)',
  'REQ(MCP-NAME)',
  'REQ(MCP-PROTOCOL-VERSION)',
] as const;

export type EnvoyOperator = (typeof ENVOY_OPERATORS)[number];

/** The documented default keys per operator, in the order they are tried (see the comment above). */
export const ENVOY_JSON_DEFAULT_KEYS: Readonly<Record<EnvoyOperator, readonly string[]>> = {
  START_TIME: ['start_time'],
  'REQ(:METHOD)': ['method'],
  'REQ(X-ENVOY-ORIGINAL-PATH?:PATH)': ['path', 'x-envoy-origin-path'],
  PROTOCOL: ['protocol'],
  RESPONSE_CODE: ['response_code'],
  RESPONSE_FLAGS: ['response_flags'],
  DURATION: ['duration'],
  'RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)': [
    'upstream_service_time',
    'x-envoy-upstream-service-time',
    'x_envoy_upstream_service_time',
  ],
  'REQ(X-FORWARDED-FOR)': ['x_forwarded_for', 'x-forwarded-for'],
  'REQ(USER-AGENT)': ['user_agent', 'user-agent'],
  'REQ(X-REQUEST-ID)': ['request_id', 'x-request-id', 'x_request_id'],
  'REQ(:AUTHORITY)': ['authority', ':authority'],
  UPSTREAM_HOST: ['upstream_host'],
  DOWNSTREAM_REMOTE_ADDRESS: ['downstream_remote_address'],
  // No documented format logs these; the keys are the ones the README's json_format gives them.
  'REQ(MCP-SESSION-ID)': ['mcp_session_id'],
  'REQ(TRACEPARENT)': ['traceparent'],
  'RESP(RETRY-AFTER)': ['retry_after'],
  'REQ(MCP-METHOD)': ['mcp_method'],
  'REQ(MCP-NAME)': ['mcp_name'],
  'REQ(MCP-PROTOCOL-VERSION)': ['mcp_protocol_version'],
};

export interface EnvoyJsonOptions extends ProxyLineOptions {
  /**
   * The key a `json_format` gives an operator, where it is not one of the documented defaults:
   * `{ fields: { 'REQ(MCP-SESSION-ID)': 'mcp_session', START_TIME: 'ts' } }`. A key named here replaces the
   * defaults for that operator.
   */
  fields?: Partial<Record<EnvoyOperator, string>>;
}

/**
 * `%START_TIME%` as epoch milliseconds: its default ISO form, or `%START_TIME(%s.%3f)%`'s seconds. Undefined when it
 * is neither; why not, when it is no real instant (shared/instant.ts).
 */
function readStartTime(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  const seconds = secondsToMs(text);
  const reading = readIsoInstant(text, { zoned: true }) ?? (seconds === undefined ? null : instantOfMs(seconds));
  if (reading === null) return undefined;
  return reading.ok ? reading.ms : `the time ${quote(text)} is no real instant: ${reading.reason}`;
}

const START_TIME_HINT =
  '%START_TIME% is needed, as Envoy writes it by default (2016-04-15T20:17:00.310Z) or as seconds (%s.%3f)';

// After `[%START_TIME%] "`: the request line, then code, flags, bytes received, bytes sent, duration, upstream
// service time, then the quoted tail. Lazy, so a `"` later in the line cannot end the request line.
const TEXT_REST = /^(.*?)" (\d+|-) (\S+) (\d+|-) (\d+|-) (\d+|-) (\S+) "(.*)"$/;

/** One line of Envoy's default text format. */
export function envoyLineToEvent(line: string, options: ProxyLineOptions = {}): ProxyLineResult {
  if (isBlank(line)) return reject('empty_line', 'the line is empty');
  const text = chomp(line);
  const timeEnd = text.indexOf('] "');
  const rest = timeEnd > 1 && text.charCodeAt(0) === 91 /* [ */ ? TEXT_REST.exec(text.slice(timeEnd + 3)) : null;
  const tail = rest === null ? undefined : (rest[8] as string).split('" "');
  if (rest === null || tail === undefined || tail.length < 5) {
    return reject(
      'not_the_format',
      'not a line of Envoy\'s default access log format: [%START_TIME%] "%REQ(:METHOD)% ... %PROTOCOL%" ' +
        '%RESPONSE_CODE% %RESPONSE_FLAGS% ... "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"',
    );
  }
  const startTime = text.slice(1, timeEnd);
  const ts = readStartTime(startTime);
  if (typeof ts === 'string') return reject('no_timestamp', ts);
  if (ts === undefined)
    return reject('no_timestamp', `the time ${quote(startTime)} cannot be read; ${START_TIME_HINT}`);
  const [, request = '', code, flags, , , duration, serviceTime] = rest;
  const warnings: FieldWarning[] = [];
  // The request line is `%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%`, each `-` when unset.
  const first = request.indexOf(' ');
  const last = request.lastIndexOf(' ');
  let method: string | undefined;
  let path: string | undefined;
  let protocol: string | undefined;
  if (first > 0 && last > first) {
    method = present(request.slice(0, first));
    path = present(request.slice(first + 1, last));
    protocol = present(request.slice(last + 1));
  } else {
    warnings.push({ field: 'http', message: `not "METHOD PATH PROTOCOL": ${quote(request)}; left absent` });
  }
  const forwardedFor = tail[0];
  const upstreamHost = tail[tail.length - 1];
  const authority = tail[tail.length - 2];
  const requestId = tail[tail.length - 3];
  const userAgent = tail.slice(1, -3).join('" "');
  return toEvent(
    {
      ts,
      method,
      path,
      status: readStatus(present(code), 'http.status', warnings),
      latencyMs: wholeMs(present(duration)),
      host: keepText(present(authority), 'proxy.host', warnings),
      proxy: {
        requestId: keepText(present(requestId), 'http.requestId', warnings),
        userAgent: keepText(present(userAgent), 'proxy.userAgent', warnings),
        forwardedFor: keepText(present(forwardedFor), 'proxy.forwardedFor', warnings),
        protocol: keepText(protocol, 'proxy.protocol', warnings),
        upstreamHost: keepText(present(upstreamHost), 'proxy.upstreamHost', warnings),
        responseFlags: keepText(present(flags), 'proxy.responseFlags', warnings),
        upstreamServiceTimeMs: wholeMs(present(serviceTime)),
      },
    },
    options,
    warnings,
  );
}

/** One line of an Envoy JSON access log (`json_format` or `typed_json_format`). */
export function envoyJsonLineToEvent(line: string, options: EnvoyJsonOptions = {}): ProxyLineResult {
  if (isBlank(line)) return reject('empty_line', 'the line is empty');
  const object = parseJsonObject(chomp(line));
  if (object === undefined) {
    return reject(
      'not_the_format',
      'not a JSON object; an Envoy JSON access log (json_format) has one object per line',
    );
  }
  return envoyJsonObjectToEvent(object, options);
}

/** The same, for a line already parsed. */
export function envoyJsonObjectToEvent(
  object: Record<string, unknown>,
  options: EnvoyJsonOptions = {},
): ProxyLineResult {
  const fields = options.fields;
  const ts = readStartTime(operatorText(object, fields, 'START_TIME'));
  if (typeof ts === 'string') return reject('no_timestamp', ts);
  if (ts === undefined) {
    const key = fields?.START_TIME ?? 'start_time';
    return reject('no_timestamp', `no time on the line: "${key}" (${START_TIME_HINT}); name your key in "fields"`);
  }
  const warnings: FieldWarning[] = [];
  const duration = readOperator(object, fields, 'DURATION');
  const latencyMs = wholeMs(present(jsonText(duration)));
  if (latencyMs === undefined && jsonText(duration) !== undefined) {
    warnings.push({ field: 'latencyMs', message: `%DURATION% is not milliseconds: ${quote(String(duration))}` });
  }
  const method = operatorText(object, fields, 'REQ(:METHOD)');
  const path = operatorText(object, fields, 'REQ(X-ENVOY-ORIGINAL-PATH?:PATH)');
  if (method === undefined && path === undefined) {
    warnings.push({
      field: 'http',
      message: 'no method or path on the line (a TCP log, or keys not named in "fields")',
    });
  }
  return toEvent(
    {
      ts,
      method,
      path,
      status: readStatus(readOperator(object, fields, 'RESPONSE_CODE'), 'http.status', warnings),
      retryAfter: operatorText(object, fields, 'RESP(RETRY-AFTER)'),
      latencyMs,
      session: operatorText(object, fields, 'REQ(MCP-SESSION-ID)'),
      ...readMcpHeaders(
        {
          method: operatorText(object, fields, 'REQ(MCP-METHOD)'),
          name: operatorText(object, fields, 'REQ(MCP-NAME)'),
          protocolVersion: operatorText(object, fields, 'REQ(MCP-PROTOCOL-VERSION)'),
        },
        warnings,
      ),
      host: keepText(operatorText(object, fields, 'REQ(:AUTHORITY)'), 'proxy.host', warnings),
      proxy: {
        requestId: keepText(operatorText(object, fields, 'REQ(X-REQUEST-ID)'), 'http.requestId', warnings),
        traceparent: keepText(operatorText(object, fields, 'REQ(TRACEPARENT)'), 'http.traceparent', warnings),
        userAgent: keepText(operatorText(object, fields, 'REQ(USER-AGENT)'), 'proxy.userAgent', warnings),
        remoteAddr: keepText(operatorText(object, fields, 'DOWNSTREAM_REMOTE_ADDRESS'), 'proxy.remoteAddr', warnings),
        forwardedFor: keepText(operatorText(object, fields, 'REQ(X-FORWARDED-FOR)'), 'proxy.forwardedFor', warnings),
        protocol: keepText(operatorText(object, fields, 'PROTOCOL'), 'proxy.protocol', warnings),
        upstreamHost: keepText(operatorText(object, fields, 'UPSTREAM_HOST'), 'proxy.upstreamHost', warnings),
        responseFlags: keepText(operatorText(object, fields, 'RESPONSE_FLAGS'), 'proxy.responseFlags', warnings),
        upstreamServiceTimeMs: wholeMs(operatorText(object, fields, 'RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)')),
      },
    },
    options,
    warnings,
  );
}

/** An operator's value: under the key `fields` names for it, else under the first documented default key present. */
function readOperator(
  object: Record<string, unknown>,
  fields: EnvoyJsonOptions['fields'],
  operator: EnvoyOperator,
): unknown {
  const named = fields?.[operator];
  if (named !== undefined) return member(object, named);
  for (const key of ENVOY_JSON_DEFAULT_KEYS[operator]) {
    const value = member(object, key);
    if (value !== undefined) return value;
  }
  return undefined;
}

function operatorText(
  object: Record<string, unknown>,
  fields: EnvoyJsonOptions['fields'],
  operator: EnvoyOperator,
): string | undefined {
  return jsonText(readOperator(object, fields, operator));
}
