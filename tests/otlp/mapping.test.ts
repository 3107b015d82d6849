import { describe, expect, it } from 'vitest';
import { validateEvent } from '../../shared/event.ts';
import { type TracesOptions, tracesToEvents } from '../../shared/otlp/index.ts';
import { decodeOk, jsonBytes, otlpJson, type SpanInput, TRACE } from './support.ts';

/** Spans no recorded body has: the MCP semantic conventions, other instrumentations, and edge cases. */

const CLIENT = 3;
const SERVER = 2;
const INTERNAL = 1;
const TRACELOOP = '@traceloop/instrumentation-mcp';

function map(service: string, scope: string, spans: readonly SpanInput[], options: TracesOptions = {}) {
  const result = tracesToEvents(decodeOk(jsonBytes(otlpJson(service, scope, spans)), 'json'), options);
  for (const item of result.items) expect(validateEvent(item.value)).toMatchObject({ ok: true, warnings: [] });
  return result;
}

const httpClient = (spanId: string, parentSpanId: string, extra: SpanInput['attributes'] = {}): SpanInput => ({
  spanId,
  parentSpanId,
  name: 'POST',
  kind: CLIENT,
  startMs: 1,
  attributes: {
    'http.request.method': 'POST',
    'url.full': 'https://docs.example/mcp',
    'server.address': 'docs.example',
    'server.port': 443,
    'http.response.status_code': 200,
    'http.request.header.mcp-session-id': ['wire-session'],
    ...extra,
  },
});

describe('spans under the MCP semantic conventions', () => {
  it('rebuild a tools/call from the attributes, never taking a request or session id a span made up', () => {
    const { items } = map('agent', 'mcp-otel', [
      {
        spanId: '1000000000000001',
        name: 'tools/call search',
        kind: CLIENT,
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'search',
          'gen_ai.tool.call.arguments': '{"q":"x"}',
          'mcp.session.id': '5f0c6c1e-made-up-by-the-sdk',
          'jsonrpc.request.id': '47',
          'mcp.request.id': 'b3f1c0de-uuid',
          'error.type': '-32602',
          'rpc.response.status_code': '-32602',
        },
        status: { code: 2, message: 'Unknown tool: search' },
      },
      httpClient('2000000000000002', '1000000000000001'),
    ]);
    expect(items).toHaveLength(1);
    expect(items[0]?.value).toMatchObject({
      source: 'client',
      client: 'agent',
      server: 'docs.example:443',
      session: 'wire-session',
      request: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'search', arguments: { q: 'x' } } },
      response: { jsonrpc: '2.0', error: { code: -32602, message: 'Unknown tool: search' } },
      http: { traceparent: `00-${TRACE}-2000000000000002-01` },
    });
    expect(items[0]?.value.request).not.toHaveProperty('id');
  });

  it.each([
    ['rpc.jsonrpc.error_code', -32601],
    ['rpc.status_code', '-32601'],
    ['error.type', '-32601'],
  ])('read the code from the older %s too', (key, code) => {
    const { items } = map('agent', 'mcp-otel', [
      {
        spanId: '1000000000000001',
        name: 'tools/call',
        kind: CLIENT,
        attributes: {
          'mcp.method.name': 'tools/call',
          'mcp.tool.name': 'old',
          'server.address': 'old.example',
          [key]: code,
        },
        status: { code: 2 },
      },
    ]);
    expect(items[0]?.value).toMatchObject({
      server: 'old.example',
      request: { params: { name: 'old' } },
      response: { error: { code: -32601 } },
    });
  });

  it('read error.type "tool_error" as an isError result', () => {
    const { items } = map('agent', 'mcp-otel', [
      {
        spanId: '1000000000000001',
        name: 'tools/call flaky',
        kind: CLIENT,
        attributes: {
          'mcp.method.name': 'tools/call',
          'server.address': 'a',
          'error.type': 'tool_error',
          'mcp.session.id': 'no-header-says-so',
        },
        status: { code: 2, message: 'backend down' },
      },
    ]);
    expect(items[0]?.value.session).toBeUndefined();
    expect(items[0]?.value.request).toMatchObject({ params: { name: 'flaky' } });
    expect(items[0]?.value.response).toEqual({
      jsonrpc: '2.0',
      result: { content: [{ type: 'text', text: 'backend down' }], isError: true },
    });
  });

  it("join the server's HTTP span and its MCP span into the server's one record of the request", () => {
    const { items } = map('docs-server', 'mcp-otel', [
      {
        spanId: '3000000000000003',
        parentSpanId: '2000000000000002',
        name: 'POST',
        kind: SERVER,
        flags: 769,
        attributes: {
          'http.request.method': 'POST',
          'url.path': '/mcp',
          'http.response.status_code': 200,
          'http.request.header.x-request-id': ['r-1'],
        },
      },
      { spanId: '3100000000000031', parentSpanId: '3000000000000003', name: 'middleware', kind: INTERNAL },
      {
        spanId: '4000000000000004',
        parentSpanId: '3100000000000031',
        name: 'resources/read',
        kind: SERVER,
        attributes: { 'mcp.method.name': 'resources/read', 'mcp.resource.uri': 'file:///a' },
      },
    ]);
    expect(items.map((i) => i.value)).toEqual([
      {
        id: `otlp-${TRACE}-3000000000000003`,
        ts: '2026-11-02T10:00:00.000Z',
        source: 'proxy',
        server: 'docs-server',
        protocol: 'mcp',
        http: {
          method: 'POST',
          path: '/mcp',
          status: 200,
          requestId: 'r-1',
          traceparent: `00-${TRACE}-2000000000000002-01`,
        },
        request: { jsonrpc: '2.0', method: 'resources/read', params: { uri: 'file:///a' } },
        latencyMs: 10,
      },
    ]);
  });

  it('give a server record no traceparent when its parent was a local span: not what the request carried', () => {
    const { items } = map('docs-server', 'mcp-otel', [
      {
        spanId: '3000000000000003',
        parentSpanId: '2000000000000002',
        name: 'GET',
        kind: SERVER,
        attributes: { 'http.request.method': 'GET', 'url.path': '/mcp', 'http.request.header.mcp-session-id': ['s'] },
      },
    ]);
    expect(items[0]?.value.http).toEqual({ method: 'GET', path: '/mcp' });
  });

  it("read a sampling request a server sends as the server's record", () => {
    const { items } = map('docs-server', 'mcp-otel', [
      {
        spanId: '5000000000000005',
        name: 'sampling/createMessage',
        kind: CLIENT,
        attributes: { 'mcp.method.name': 'sampling/createMessage' },
      },
    ]);
    expect(items[0]?.value).toMatchObject({ source: 'proxy', server: 'docs-server' });
    expect(items[0]?.value.client).toBeUndefined();
  });
});

describe('Traceloop spans beyond the recorded ones', () => {
  const call = (extra: Partial<SpanInput>): SpanInput => ({
    spanId: '1000000000000001',
    name: 'search.tool',
    kind: CLIENT,
    attributes: { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'search' },
    ...extra,
  });

  it("read the SDK's own timeout as a timeout, not as the -32001 a server could answer", () => {
    const message = 'MCP error -32001: Request timed out';
    const { items } = map('agent', TRACELOOP, [
      call({ exception: { type: '-32001', message }, status: { code: 2, message } }),
      httpClient('2000000000000002', '1000000000000001', { 'http.response.status_code': 200 }),
    ]);
    expect(items[0]?.value).toMatchObject({ timeout: true, request: { params: { name: 'search' } } });
    expect(items[0]?.value.response).toBeUndefined();
  });

  it('read a failure whose code is no JSON-RPC code (an HTTP status in exception.type) as no answer frame', () => {
    const message = 'Streamable HTTP error: Error POSTing to endpoint (HTTP 401): unauthorized';
    const { items } = map('agent', TRACELOOP, [
      call({ exception: { type: '401', message }, status: { code: 2, message } }),
      httpClient('2000000000000002', '1000000000000001', { 'http.response.status_code': 401 }),
    ]);
    expect(items[0]?.value).toMatchObject({ http: { status: 401 } });
    expect(items[0]?.value.response).toBeUndefined();
  });

  it('keep a whole JSON-RPC frame that a span carries, wire id and all', () => {
    const frame = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search' } };
    const { items } = map('agent', TRACELOOP, [
      call({ attributes: { 'traceloop.entity.input': JSON.stringify(frame) } }),
      httpClient('2000000000000002', '1000000000000001'),
    ]);
    expect(items[0]?.value.request).toEqual(frame);
  });
});

describe('what is not an event', () => {
  it("is neither an agent's call to another endpoint nor an internal span, and neither is rejected", () => {
    const { items, rejected } = map('agent', TRACELOOP, [
      bareToolSpan(),
      httpClient('2000000000000002', '1000000000000001'),
      {
        spanId: '6000000000000006',
        name: 'POST',
        kind: CLIENT,
        attributes: {
          'http.request.method': 'POST',
          'url.full': 'https://api.model.example/v1/chat',
          'server.address': 'api.model.example',
        },
      },
      { spanId: '7000000000000007', name: 'render', kind: INTERNAL },
    ]);
    expect(items.map((i) => i.value.server)).toEqual(['docs.example:443']);
    expect(rejected).toEqual([]);
  });

  it('is an MCP span that names no server: rejected, with the fix, unless ?server= names it', () => {
    const alone = [bareToolSpan()];
    expect(map('agent', TRACELOOP, alone).rejected).toEqual([
      {
        ordinal: 1,
        spans: 1,
        reason: 'no server.address or url.full names the server; add ?server=NAME to the exporter URL',
      },
    ]);
    expect(map('agent', TRACELOOP, alone, { server: 'docs' }).items[0]?.value.server).toBe('docs');
  });
});

function bareToolSpan(): SpanInput {
  return { spanId: '1000000000000001', name: 'search.tool', kind: CLIENT };
}
