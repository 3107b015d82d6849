import type { ProxyFormat } from '../../shared/proxy-logs/index.ts';
import { ALL_CORPORA, corpusText } from '../support/corpus.ts';
import { fuzzLine, mutateText, type Random } from './mutate.ts';

/**
 * Real access-log lines for the fuzz suite, in every format a host's proxy writes that ingest reads: nginx's JSON and
 * combined lines as the corpora recorded them, and Envoy's default text and JSON lines holding the same requests
 * (no Envoy log was recorded: each nginx JSON line is rewritten in the layout Envoy's documentation gives, see
 * shared/proxy-logs/envoy.test.ts). Mutated as text, or member by member where the line is JSON.
 */

const CORPORA = ALL_CORPORA;

const lines = (file: string) => CORPORA.flatMap((corpus) => corpusText(corpus, file).trim().split('\n'));

const NGINX_JSON = lines('nginx-access.json.log');
const recorded = NGINX_JSON.map((line) => JSON.parse(line) as Record<string, string | number>);

/** Envoy's default format: `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" …`. */
function envoyText(n: Record<string, string | number>): string {
  const start = new Date(Number(n.msec) * 1000).toISOString();
  const ms = Math.round(Number(n.request_time) * 1000);
  return (
    `[${start}] "${n.request_method} ${n.request_uri} HTTP/1.1" ${n.status} - ${n.request_length ?? 0} ` +
    `${n.body_bytes_sent ?? 0} ${ms} ${ms} "${n.remote_addr}" "${n.http_user_agent}" "${n.request_id}" ` +
    `"127.0.0.1:8000" "127.0.0.1:9000"`
  );
}

/** Istio's default JSON keys, with the MCP headers this project documents. */
function envoyJson(n: Record<string, string | number>): string {
  return JSON.stringify({
    start_time: new Date(Number(n.msec) * 1000).toISOString(),
    method: n.request_method,
    path: n.request_uri,
    protocol: 'HTTP/1.1',
    response_code: String(n.status),
    duration: String(Math.round(Number(n.request_time) * 1000)),
    user_agent: n.http_user_agent,
    request_id: n.request_id,
    authority: '127.0.0.1:8000',
    mcp_session_id: n.http_mcp_session_id,
    traceparent: n.http_traceparent,
    retry_after: n.sent_http_retry_after,
    mcp_protocol_version: n.http_mcp_protocol_version,
  });
}

export const HOST_LINES: Record<ProxyFormat, readonly string[]> = {
  'nginx-json': NGINX_JSON,
  'nginx-combined': lines('nginx-access.combined.log'),
  envoy: recorded.map(envoyText),
  'envoy-json': recorded.map(envoyJson),
};

export const HOST_FORMATS = Object.keys(HOST_LINES) as ProxyFormat[];

/** One fuzzed line of `format`: a JSON line mostly member by member, any line sometimes as text. */
export function fuzzHostLine(format: ProxyFormat, r: Random): string {
  const source = r.pick(HOST_LINES[format]);
  return format.endsWith('json') && r.next() < 0.7 ? fuzzLine(source, r) : mutateText(source, r);
}
