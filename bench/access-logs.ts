import type { SyntheticEvent } from './generate.ts';

/**
 * One synthetic request as each side would have logged it: the client's native record (with the `X-Request-Id` its
 * answer carried and the `traceparent` it sent), and the reverse proxy's access-log line in each format ingest
 * reads. The nginx JSON line has the variables of the corpus's `fed_json` log_format (/work/shared/corpus/nginx.conf,
 * tests/fixtures/corpus/mcp-python/nginx-access.json.log); the Envoy lines follow the documented examples in
 * shared/proxy-logs/envoy.test.ts (the default text format, and Istio's JSON keys under json_format).
 */

export interface LoggedRequest {
  /** The client's native record, as an NDJSON line. */
  client: string;
  server: string;
  /** When the proxy wrote the line (the request's end), epoch ms: the order of an access log. */
  loggedAt: number;
  'nginx-json': string;
  'nginx-combined': string;
  envoy: string;
  'envoy-json': string;
}

/** The proxy saw the request this long after the client sent it, and answered the client this much sooner. */
const NETWORK_MS = 1;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function logRequest(event: SyntheticEvent, index: number): LoggedRequest {
  const requestId = hex32(index, 0x5bd1e995);
  const traceparent = `00-${hex32(index, 0x27d4eb2f)}-${hex32(index, 0x165667b1).slice(0, 16)}-01`;
  const client = {
    ...event,
    source: 'client',
    http: { ...event.http, requestId, traceparent },
  };
  const start = event.ts + NETWORK_MS;
  const durationMs = Math.max(0, event.latencyMs - 2 * NETWORK_MS);
  const end = start + durationMs;
  const clientNumber = Number(event.client.slice(event.client.indexOf('-') + 1));
  const serverNumber = Number(event.server.slice(event.server.indexOf('-') + 1));
  const remoteAddr = `10.20.${clientNumber >> 8}.${(clientNumber & 255) + 1}`;
  const userAgent = `${event.client}/1.4 mcp-typescript/1.17.2`;
  const { method, path, status } = event.http;
  const requestBytes = 310 + (event.request === undefined ? 0 : JSON.stringify(event.request).length);
  const bodyBytes = responseBytes(event);
  const contentType = method === 'GET' ? 'text/plain; charset=utf-8' : 'application/json';
  const upstreamMs = Math.max(0, durationMs - 1);
  const nginx = {
    time_iso8601: `${new Date(Math.floor(end / 1000) * 1000).toISOString().slice(0, 19)}+00:00`,
    msec: (end / 1000).toFixed(3),
    remote_addr: remoteAddr,
    request_method: method,
    request_uri: path,
    status,
    request_time: Number((durationMs / 1000).toFixed(3)),
    upstream_status: String(status),
    upstream_response_time: (upstreamMs / 1000).toFixed(3),
    request_id: requestId,
    http_mcp_session_id: event.session,
    sent_http_mcp_session_id: event.session,
    http_mcp_protocol_version: '2025-06-18',
    http_a2a_version: '',
    sent_http_content_type: contentType,
    sent_http_retry_after: event.http.retryAfter === undefined ? '' : String(event.http.retryAfter),
    http_traceparent: traceparent,
    http_user_agent: userAgent,
    request_length: requestBytes,
    body_bytes_sent: bodyBytes,
  };
  // Envoy makes its own x-request-id, a UUID.
  const envoyId = `${requestId.slice(0, 8)}-${requestId.slice(8, 12)}-${requestId.slice(12, 16)}-${requestId.slice(16, 20)}-${requestId.slice(20)}`;
  const authority = `${event.server}.mcp.svc:8080`;
  const upstreamHost = `10.30.0.${serverNumber + 1}:8080`;
  const startIso = new Date(start).toISOString();
  const istio = {
    authority,
    bytes_received: String(requestBytes),
    bytes_sent: String(bodyBytes),
    connection_termination_details: '-',
    downstream_local_address: `10.30.0.${serverNumber + 1}:8080`,
    downstream_remote_address: `${remoteAddr}:${40000 + (index % 20000)}`,
    duration: String(durationMs),
    method,
    path,
    protocol: 'HTTP/1.1',
    request_id: envoyId,
    requested_server_name: '-',
    response_code: String(status),
    response_code_details: 'via_upstream',
    response_flags: '-',
    route_name: 'default',
    start_time: startIso,
    upstream_cluster: `outbound|8080||${event.server}.mcp.svc.cluster.local`,
    upstream_host: upstreamHost,
    upstream_local_address: `10.30.1.${serverNumber + 1}:${50000 + (index % 10000)}`,
    upstream_service_time: String(upstreamMs),
    upstream_transport_failure_reason: '-',
    user_agent: userAgent,
    x_forwarded_for: remoteAddr,
  };
  return {
    client: JSON.stringify(client),
    server: event.server,
    loggedAt: end,
    'nginx-json': JSON.stringify(nginx),
    'nginx-combined': `${remoteAddr} - - [${timeLocal(end)}] "${method} ${path} HTTP/1.1" ${status} ${bodyBytes} "-" "${userAgent}"`,
    envoy:
      `[${startIso}] "${method} ${path} HTTP/1.1" ${status} - ${requestBytes} ${bodyBytes} ${durationMs} ` +
      `${upstreamMs} "${remoteAddr}" "${userAgent}" "${envoyId}" "${authority}" "${upstreamHost}"`,
    'envoy-json': JSON.stringify(istio),
  };
}

/** What the server sent back: the answer's frame, or a small error body. */
function responseBytes(event: SyntheticEvent): number {
  if (event.response !== undefined) return JSON.stringify(event.response).length;
  if (event.http.status === 404) return 9;
  return 64;
}

/** 32 hex digits from a request's number, like nginx's `$request_id`: each word a bijection of it, so distinct. */
function hex32(index: number, salt: number): string {
  let out = '';
  for (let word = 0; word < 4; word++) {
    let state = (index ^ salt ^ Math.imul(word + 1, 0x9e3779b9)) >>> 0;
    state = Math.imul(state ^ (state >>> 16), 0x85ebca6b) >>> 0;
    state = Math.imul(state ^ (state >>> 13), 0xc2b2ae35) >>> 0;
    out += ((state ^ (state >>> 16)) >>> 0).toString(16).padStart(8, '0');
  }
  return out;
}

/** nginx's `$time_local` in UTC: `02/Nov/2026:00:00:01 +0000`. */
function timeLocal(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`
  );
}
