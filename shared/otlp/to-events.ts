import { text } from './attributes.ts';
import type { HttpSpan } from './http-span.ts';
import type { McpSpan } from './mcp-span.ts';
import type { ResourceSpans, Span } from './model.ts';
import { groupRequests, type RequestSpans } from './requests.ts';

/**
 * Spans → native events (DOMAIN.md section 2), the plain objects `validateEvent` takes: one per request per side.
 * A client's record is `source: "client"`; the server's own record of a request is `source: "proxy"`, the native
 * format's "an observer that is not the client". Each event's `id` is its outer span's trace and span id, so a
 * body sent again is all duplicates.
 */

export interface TracesOptions {
  /** The server these spans are traffic of (`?server=NAME` on the exporter's URL), overriding what spans say. */
  server?: string;
}

export interface EventItem {
  /** The outer span's position in the body, 1-based. */
  line: number;
  value: Record<string, unknown>;
  /** Spans the event was made from. */
  spans: number;
}

/** Spans that did not become an event, and why, for OTLP's `partial_success`. */
export interface Rejection {
  /** The position of the (outer) span in the body, 1-based. */
  ordinal: number;
  spans: number;
  reason: string;
}

const NS_PER_MS = 1_000_000n;
/** SpanFlags in trace.proto: whether the parent's remoteness is known, and whether it was remote. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

export function tracesToEvents(
  resources: readonly ResourceSpans[],
  options: TracesOptions = {},
): { items: EventItem[]; rejected: Rejection[] } {
  const { requests, defects } = groupRequests(resources);
  const rejected: Rejection[] = defects.map((d) => ({ ...d, spans: 1 }));
  const items: EventItem[] = [];
  for (const request of requests) {
    const event = toEvent(request, options);
    if (typeof event === 'string') rejected.push({ ordinal: request.ordinal, spans: request.spans, reason: event });
    else items.push({ line: request.ordinal, value: event, spans: request.spans });
  }
  return { items, rejected };
}

/** The event, or why there can be none. */
function toEvent(request: RequestSpans, options: TracesOptions): Record<string, unknown> | string {
  const { outer, mcp, http } = request;
  const observer = text(request.resource, 'service.name');
  const byServer = mcp?.byServer ?? http?.read.side === 'server';
  const server = options.server ?? (byServer ? observer : (http?.read.endpoint ?? mcp?.endpoint));
  if (server === undefined) {
    return byServer
      ? 'the resource has no service.name to name the server; add ?server=NAME to the exporter URL'
      : 'no server.address or url.full names the server; add ?server=NAME to the exporter URL';
  }
  if (!byServer && observer === undefined) return 'the resource has no service.name to name the client';
  return defined({
    id: `otlp-${outer.traceId}-${outer.spanId}`,
    ts: new Date(Number(outer.startNs / NS_PER_MS)).toISOString(),
    source: byServer ? 'proxy' : 'client',
    client: byServer ? undefined : observer,
    server,
    // Only the header is sure to be the session that was on the wire (see semconv-span.ts).
    session: http?.read.session,
    protocol: 'mcp',
    http: httpFacts(http, mcp),
    request: mcp?.request,
    response: mcp?.response,
    latencyMs: outer.endNs >= outer.startNs ? Number(outer.endNs - outer.startNs) / 1e6 : undefined,
    timeout: mcp?.timeout,
  });
}

/**
 * `requestId` and `traceparent` join a client's record to the server's record of the same request. The client's
 * request id is the one its answer carried (what a proxy in between gave it), the server's the one it received.
 * The protocol version is the captured `MCP-Protocol-Version` header, what the request carried, else the MCP span's
 * `mcp.protocol.version`: then it may be the event's only HTTP fact, which is what the span knows of the request.
 */
function httpFacts(
  http: { span: Span; read: HttpSpan } | undefined,
  mcp: McpSpan | undefined,
): Record<string, unknown> | undefined {
  const protocolVersion = http?.read.mcp.protocolVersion ?? mcp?.protocolVersion;
  if (http === undefined) return protocolVersion === undefined ? undefined : { protocolVersion };
  const { span, read } = http;
  const client = read.side === 'client';
  return defined({
    method: read.method,
    path: read.path,
    status: read.status,
    retryAfter: read.retryAfter,
    requestId: client ? (read.requestIdAnswered ?? read.requestIdSent) : (read.requestIdSent ?? read.requestIdAnswered),
    traceparent: traceparentOf(span, client),
    mcpMethod: read.mcp.mcpMethod,
    mcpName: read.mcp.mcpName,
    protocolVersion,
  });
}

/**
 * The W3C traceparent the request carried: a client's HTTP span is the parent its instrumentation sent; a server's
 * HTTP span has the received one as its parent, when that parent was remote (or the exporter cannot say).
 */
function traceparentOf(span: Span, client: boolean): string | undefined {
  // Exporters before OTLP 1.1 send no flags at all; a span that was exported was sampled, and its header said so.
  const flags = span.flags === 0 ? '01' : (span.flags & 0xff).toString(16).padStart(2, '0');
  if (client) return `00-${span.traceId}-${span.spanId}-${flags}`;
  const localParent = (span.flags & HAS_IS_REMOTE) !== 0 && (span.flags & IS_REMOTE) === 0;
  return span.parentSpanId === '' || localParent ? undefined : `00-${span.traceId}-${span.parentSpanId}-${flags}`;
}

function defined(members: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(members)) if (members[key] === undefined) delete members[key];
  return members;
}
