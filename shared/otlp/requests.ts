import { type HttpSpan, readHttpSpan } from './http-span.ts';
import { type McpSpan, readMcpSpan } from './mcp-span.ts';
import type { Attributes, ResourceSpans, Span } from './model.ts';

/**
 * The requests in a body, each with the spans that recorded it on one side. One request is several spans: in the
 * client, the MCP span and its HTTP client child that carried the request; in the server, the HTTP server span and
 * the MCP span that handled what it received. The spans are joined by parentage, never by trace: one trace is a
 * whole session when the instrumentation parents every request on a session span (Traceloop does).
 */

export interface RequestSpans {
  /** The span the event is made from: the outer of the two (its id, start and duration are the event's). */
  outer: Span;
  /** Its position in the body, 1-based: the event's `line`. */
  ordinal: number;
  resource: Attributes;
  mcp?: McpSpan;
  http?: { span: Span; read: HttpSpan };
  /** How many spans recorded this request (the OTLP answer counts spans). */
  spans: number;
}

export interface Grouped {
  requests: RequestSpans[];
  /** Spans that could not be read at all, by ordinal. */
  defects: { ordinal: number; reason: string }[];
}

interface Read {
  span: Span;
  ordinal: number;
  resource: Attributes;
  mcp?: McpSpan;
  http?: HttpSpan;
  session?: true;
}

/** Spans between an HTTP span and its MCP span that a walk up the parents passes (framework or wrapper spans). */
const MAX_HOPS = 4;

export function groupRequests(resources: readonly ResourceSpans[]): Grouped {
  const { reads, defects } = readAll(resources);
  const byId = new Map(reads.map((r) => [`${r.span.traceId}-${r.span.spanId}`, r]));
  const parentOf = (r: Read) =>
    r.span.parentSpanId === '' ? undefined : byId.get(`${r.span.traceId}-${r.span.parentSpanId}`);
  const ancestor = (r: Read, wanted: (p: Read) => boolean): Read | undefined => {
    let p = parentOf(r);
    for (let hop = 0; p !== undefined && hop < MAX_HOPS; hop++, p = parentOf(p)) {
      if (wanted(p)) return p;
      // Another request's span ends the walk: what is above it is that request's.
      if (p.mcp !== undefined || p.http !== undefined || p.session) return undefined;
    }
    return undefined;
  };
  const pairs = pairSpans(reads, ancestor);
  const paired = new Set(pairs.values());
  const mcpTraffic = (r: Read) =>
    pairs.has(r) ||
    paired.has(r) ||
    r.http?.mcpHeader === true ||
    ancestor(r, (p) => p.mcp !== undefined || p.session === true) !== undefined;
  const endpoints = mcpEndpoints(reads, mcpTraffic);
  const isRequest = (r: Read) =>
    r.mcp !== undefined || (r.http !== undefined && (mcpTraffic(r) || endpoints.has(endpointKey(r))));

  const requests: RequestSpans[] = [];
  for (const r of reads) {
    if (paired.has(r) || !isRequest(r)) continue;
    const inner = pairs.get(r);
    const http = r.http === undefined ? inner : r;
    requests.push({
      outer: r.span,
      ordinal: r.ordinal,
      resource: r.resource,
      mcp: r.mcp ?? inner?.mcp,
      ...(http?.http !== undefined && { http: { span: http.span, read: http.http } }),
      spans: inner === undefined ? 1 : 2,
    });
  }
  return { requests, defects };
}

function readAll(resources: readonly ResourceSpans[]) {
  const reads: Read[] = [];
  const defects: Grouped['defects'] = [];
  let ordinal = 0;
  for (const { resource, scopes } of resources) {
    for (const { scope, spans } of scopes) {
      for (const entry of spans) {
        ordinal++;
        if (!entry.ok) {
          defects.push({ ordinal, reason: entry.reason });
          continue;
        }
        const mcp = readMcpSpan(entry.span, scope);
        const read: Read = { span: entry.span, ordinal, resource };
        if (mcp === 'session') read.session = true;
        else if (mcp !== undefined) read.mcp = mcp;
        else {
          const http = readHttpSpan(entry.span);
          if (http !== undefined) read.http = http;
        }
        reads.push(read);
      }
    }
  }
  return { reads, defects };
}

/**
 * Outer span → the inner span recorded the same request: an MCP client's request and the HTTP client span that
 * carried it; an HTTP server span and the MCP span that handled the request it received. An outer span with several
 * candidates keeps the first started: later HTTP children of an MCP span carry other messages (the client's answer
 * to a server's `ping` during a tool call posts from inside that call), later MCP children another batch member.
 */
function pairSpans(reads: readonly Read[], ancestor: (r: Read, wanted: (p: Read) => boolean) => Read | undefined) {
  const pairs = new Map<Read, Read>();
  const offer = (outer: Read | undefined, inner: Read) => {
    if (outer === undefined) return;
    const held = pairs.get(outer);
    if (held === undefined || inner.span.startNs < held.span.startNs) pairs.set(outer, inner);
  };
  for (const r of reads) {
    if (r.http?.side === 'client') {
      offer(
        ancestor(r, (p) => p.mcp?.sent === true && !p.mcp.byServer),
        r,
      );
    } else if (r.mcp !== undefined && !r.mcp.sent && r.mcp.byServer) {
      offer(
        ancestor(r, (p) => p.http?.side === 'server'),
        r,
      );
    }
  }
  const answers = answerCandidates(reads, pairs);
  for (const r of reads) {
    if (r.mcp?.sent === true && r.mcp.byServer) offer(takeAnswer(r, answers), r);
  }
  return pairs;
}

/** The POSTs of one process that no MCP span handled, by start, and which of them are taken. */
interface Answers {
  posts: Read[];
  /** Index → the first index at or after it not yet taken (a disjoint-set forest with path halving). */
  next: number[];
}

/**
 * Where the answers to requests a server sent (`ping`, `sampling/createMessage`) came in, per process: the client
 * posts its answer as a request of its own, which no MCP span handles, so only time ties the two.
 */
function answerCandidates(reads: readonly Read[], pairs: ReadonlyMap<Read, Read>): Map<Attributes, Answers> {
  const byProcess = new Map<Attributes, Answers>();
  for (const r of reads) {
    if (r.http?.side !== 'server' || r.http.method !== 'POST' || pairs.has(r)) continue;
    const answers = byProcess.get(r.resource) ?? { posts: [], next: [] };
    answers.posts.push(r);
    byProcess.set(r.resource, answers);
  }
  for (const answers of byProcess.values()) {
    answers.posts.sort((a, b) => (a.span.startNs < b.span.startNs ? -1 : a.span.startNs > b.span.startNs ? 1 : 0));
    answers.next = Array.from({ length: answers.posts.length + 1 }, (_, k) => k);
  }
  return byProcess;
}

/**
 * Takes the answer to a request the server sent: the first untaken POST of its process that started while the
 * request waited. Without it, the server's record of the request and its record of the answer's POST would count
 * one exchange twice. A binary search and a skip over taken POSTs, so that a body of many keeps near-linear.
 */
function takeAnswer(sent: Read, byProcess: Map<Attributes, Answers>): Read | undefined {
  const answers = byProcess.get(sent.resource);
  if (answers === undefined) return undefined;
  const { posts, next } = answers;
  let lo = 0;
  let hi = posts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((posts[mid] as Read).span.startNs < sent.span.startNs) lo = mid + 1;
    else hi = mid;
  }
  const free = untaken(next, lo);
  const candidate = posts[free];
  if (candidate === undefined || candidate.span.startNs > sent.span.endNs) return undefined;
  next[free] = free + 1;
  return candidate;
}

function untaken(next: number[], index: number): number {
  let k = index;
  while (next[k] !== k) {
    next[k] = next[next[k] as number] as number;
    k = next[k] as number;
  }
  return k;
}

/**
 * Endpoints (per process and side) that carried MCP traffic in this body. An HTTP span with no MCP span or header
 * of its own is a request of the MCP traffic when it went to, or was served at, one of them: the 404 of a client's
 * probe for `/.well-known/oauth-protected-resource` is; an agent's call to its model provider is not.
 */
function mcpEndpoints(reads: readonly Read[], isMcp: (r: Read) => boolean): Set<string> {
  const keys = new Set<string>();
  for (const r of reads) if (r.http !== undefined && isMcp(r)) keys.add(endpointKey(r));
  return keys;
}

function endpointKey(r: Read): string {
  return JSON.stringify([r.resource.get('service.name') ?? null, r.http?.side, r.http?.endpoint ?? null]);
}
