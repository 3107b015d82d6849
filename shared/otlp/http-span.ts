import { type McpHeaderFacts, readMcpHeaders } from '../mcp-headers.ts';
import { header, hostPort, integer, text } from './attributes.ts';
import { type Attributes, SPAN_KIND, type Span } from './model.ts';

/**
 * What an HTTP client or server span says about its request (`@opentelemetry/instrumentation-undici`, `-http` and
 * their kin): the stable HTTP semantic conventions first, the pre-1.21 names (`http.method`, `http.status_code`,
 * `http.target`, `net.peer.*`) where older instrumentations still write them.
 */
export interface HttpSpan {
  side: 'client' | 'server';
  /** The captured `mcp-method`, `mcp-name` (decoded) and `mcp-protocol-version` request headers. */
  mcp: McpHeaderFacts;
  method?: string;
  /** Path and query, as an access log writes the request target. */
  path?: string;
  status?: number;
  /** `host:port` the request went to (the Host it named, on a server span). */
  endpoint?: string;
  /** Captured `x-request-id` headers: what the request carried, and what its answer carried. */
  requestIdSent?: string;
  requestIdAnswered?: string;
  /** A captured `retry-after` header of the answer, as its text. */
  retryAfter?: string;
  /** The `mcp-session-id` the request carried: a session id that was on the wire. */
  session?: string;
  /** An MCP header was captured on the request or its answer: this was MCP traffic. */
  mcpHeader: boolean;
}

export function readHttpSpan(span: Span): HttpSpan | undefined {
  const side = span.kind === SPAN_KIND.client ? 'client' : span.kind === SPAN_KIND.server ? 'server' : undefined;
  const a = span.attributes;
  const method = text(a, 'http.request.method') ?? text(a, 'http.method');
  if (side === undefined || method === undefined) return undefined;
  const session = header(a, 'request', 'mcp-session-id');
  // An OTLP answer has no place for a warning about one attribute; an undecodable name is kept as captured.
  const mcp = readMcpHeaders(
    {
      method: header(a, 'request', 'mcp-method'),
      name: header(a, 'request', 'mcp-name'),
      protocolVersion: header(a, 'request', 'mcp-protocol-version'),
    },
    [],
  );
  return {
    side,
    mcp,
    // `_OTHER` is the conventions' word for a method they do not know; the original is then beside it.
    method: text(a, 'http.request.method_original') ?? (method === '_OTHER' ? undefined : method),
    path: pathOf(a),
    status: integer(a, 'http.response.status_code') ?? integer(a, 'http.status_code'),
    endpoint: endpointOf(a, side),
    requestIdSent: header(a, 'request', 'x-request-id'),
    requestIdAnswered: header(a, 'response', 'x-request-id'),
    retryAfter: header(a, 'response', 'retry-after'),
    session,
    mcpHeader:
      session !== undefined || Object.keys(mcp).length > 0 || header(a, 'response', 'mcp-session-id') !== undefined,
  };
}

function pathOf(a: Attributes): string | undefined {
  const path = text(a, 'url.path');
  if (path !== undefined) {
    const query = text(a, 'url.query');
    return query === undefined ? path : `${path}?${query}`;
  }
  const target = text(a, 'http.target');
  if (target !== undefined) return target;
  const url = urlOf(a);
  return url === undefined ? undefined : `${url.pathname}${url.search}`;
}

function endpointOf(a: Attributes, side: 'client' | 'server'): string | undefined {
  const old = side === 'client' ? 'net.peer' : 'net.host';
  return hostPort(a, 'server.address', 'server.port') ?? hostPort(a, `${old}.name`, `${old}.port`) ?? urlOf(a)?.host;
}

function urlOf(a: Attributes): URL | undefined {
  const full = text(a, 'url.full') ?? text(a, 'http.url');
  if (full === undefined) return undefined;
  try {
    return new URL(full);
  } catch {
    return undefined;
  }
}
