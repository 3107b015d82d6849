import { describe, expect, it } from 'vitest';
import { classify } from '../../shared/classify/index.ts';
import { NO_POLICY } from '../../shared/classify/types.ts';
import { validateEvent } from '../../shared/event.ts';
import { tracesToEvents } from '../../shared/otlp/index.ts';
import { byRequestId, decodeOk, fixtureEvents, fixtureJson, jsonBytes, type Process } from './support.ts';

const SESSION = '71e9efa3-8820-4ce3-a528-21352de60a8d';
const SERVER_ADDRESS = '127.0.0.1:45047';
/**
 * The fixture README's table: the client made 13 HTTP requests (req-0001 … req-0013), and every one was traced by
 * undici in the client and by instrumentation-http in the server. What is not traced is only the MCP layer of some
 * (the notification, the SSE GET, the client's answer to `ping`, the 404 probe, the DELETE): those are HTTP records.
 */
const TABLE_REQUESTS = 13;

describe('the client body', () => {
  const { items, rejected } = fixtureEvents('client');
  const events = byRequestId(items);

  it('is one event per request of the table: 22 spans, 13 requests, nothing rejected', () => {
    expect(items).toHaveLength(TABLE_REQUESTS);
    expect([...events.keys()].sort()).toEqual(
      Array.from({ length: 13 }, (_, i) => `req-${String(i + 1).padStart(4, '0')}`),
    );
    // 9 MCP spans: the session span is no request, the 8 others each joined their undici span.
    expect(items.reduce((sum, item) => sum + item.spans, 0)).toBe(22 - 1);
    expect(rejected).toEqual([]);
  });

  it("counts a tools/call's Traceloop span and undici span once, with the frames of one and the HTTP of the other", () => {
    const call = events.get('req-0005');
    const json = fixtureJson('client').resourceSpans[0]?.scopeSpans ?? [];
    const undici = json[0]?.spans.find((s) => JSON.stringify(s).includes('"req-0005"'));
    const traceloop = json[1]?.spans.find((s) => s.spanId === undici?.parentSpanId);
    expect(traceloop?.name).toBe('get_record.tool');
    expect(call).toEqual({
      id: `otlp-${traceloop?.traceId}-${traceloop?.spanId}`,
      ts: '2026-12-02T06:54:54.834Z',
      source: 'client',
      client: 'fixture-mcp-client',
      server: SERVER_ADDRESS,
      session: SESSION,
      protocol: 'mcp',
      http: {
        method: 'POST',
        path: '/mcp',
        status: 200,
        requestId: 'req-0005',
        traceparent: `00-${undici?.traceId}-${undici?.spanId}-01`,
        protocolVersion: '2025-11-25',
      },
      request: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'get_record', arguments: { id: 'r-1' } } },
      response: {
        jsonrpc: '2.0',
        result: { content: [{ type: 'text', text: '{"id":"r-1","title":"first record","state":"open"}' }] },
      },
      latencyMs: 32.8063,
    });
  });

  it.each([
    ['req-0001', 'POST /mcp 200', 'initialize', 'ok'],
    ['req-0002', 'POST /mcp 202', undefined, 'ok'],
    ['req-0003', 'GET /mcp 200', undefined, 'ok'],
    ['req-0004', 'POST /mcp 200', 'tools/list', 'ok'],
    ['req-0006', 'POST /mcp 200', 'tools/call', 'failed'],
    ['req-0007', 'POST /mcp 200', 'tools/call', 'failed'],
    ['req-0008', 'POST /mcp 200', 'tools/call', 'failed'],
    ['req-0009', 'POST /mcp 200', 'tools/call', 'ok'],
    ['req-0010', 'POST /mcp 202', undefined, 'ok'],
    ['req-0011', 'POST /mcp 200', 'resources/read', 'failed'],
    ['req-0012', 'GET /.well-known/oauth-protected-resource 404', undefined, 'failed'],
    ['req-0013', 'DELETE /mcp 200', undefined, 'ok'],
  ])('reads %s as %s, %s, and the classifier as %s', (id, line, method, outcome) => {
    const event = events.get(id) ?? {};
    const http = event.http as { method: string; path: string; status: number };
    expect(`${http.method} ${http.path} ${http.status}`).toBe(line);
    expect((event.request as { method?: string } | undefined)?.method).toBe(method);
    const parsed = validateEvent(event);
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(parsed.warnings).toEqual([]);
    expect(classify(parsed.event, NO_POLICY).bucket === 'ok' ? 'ok' : 'failed').toBe(outcome);
  });

  it('rebuilds the answers Traceloop kept: an isError result, and the JSON-RPC error with its code', () => {
    expect(events.get('req-0008')?.response).toEqual({
      jsonrpc: '2.0',
      result: { content: [{ type: 'text', text: 'MCP error -32602: Tool no_such_tool not found' }], isError: true },
    });
    // The client doubled the SDK prefix; the wire message had it once.
    expect(events.get('req-0011')?.response).toEqual({
      jsonrpc: '2.0',
      error: { code: -32602, message: 'MCP error -32602: Unknown record: r-404' },
    });
    expect(events.get('req-0001')?.response).toMatchObject({ result: { serverInfo: { name: 'fixture-records' } } });
  });

  it('takes the session only from the mcp-session-id the request carried: initialize had none', () => {
    expect(events.get('req-0001')?.session).toBeUndefined();
    expect(events.get('req-0012')?.session).toBeUndefined();
    const withSession = [...events.values()].filter((e) => e.session === SESSION);
    expect(withSession).toHaveLength(TABLE_REQUESTS - 2);
  });

  it("keeps the client's answer to the server's ping (a second undici child of ping_client.tool) apart", () => {
    const call = events.get('req-0009');
    const answer = events.get('req-0010');
    expect(call?.request).toMatchObject({ params: { name: 'ping_client' } });
    expect(answer?.request).toBeUndefined();
    expect(answer?.id).not.toBe(call?.id);
  });

  it('names the server with ?server= when the exporter URL gives one', () => {
    const named = fixtureEvents('client', 'proto', { server: 'docs' });
    expect(new Set(named.items.map((i) => i.value.server))).toEqual(new Set(['docs']));
  });
});

describe('the server body', () => {
  const { items, rejected } = fixtureEvents('server');
  const events = byRequestId(items);

  it("is the server's record of each of the 13 requests, the ping it sent among them", () => {
    expect(items).toHaveLength(TABLE_REQUESTS);
    expect(events.size).toBe(TABLE_REQUESTS);
    expect(items.reduce((sum, item) => sum + item.spans, 0)).toBe(14);
    expect(rejected).toEqual([]);
    for (const event of events.values()) {
      expect(event).toMatchObject({ source: 'proxy', server: 'fixture-mcp-server', protocol: 'mcp' });
    }
  });

  it('reads ping.mcp (SERVER kind) as the request the server sent, with the POST that brought its answer', () => {
    // ping.mcp is a child of the tools/call it rode on (req-0009), and no MCP span handles the client's answer
    // (req-0010): only its start, while the ping was waiting, ties that POST to the ping.
    const ping = items.filter((i) => (i.value.request as { method?: string } | undefined)?.method === 'ping');
    expect(ping.map((i) => i.spans)).toEqual([2]);
    expect(ping[0]?.value).toMatchObject({
      source: 'proxy',
      server: 'fixture-mcp-server',
      request: { method: 'ping' },
      http: { method: 'POST', status: 202, requestId: 'req-0010' },
    });
    expect(events.get('req-0009')?.request).toBeUndefined();
    for (const [id, event] of events) if (id !== 'req-0010') expect(event.request, id).toBeUndefined();
  });

  it('carries the traceparent and request id that join each record to the client record of the same request', () => {
    const client = byRequestId(fixtureEvents('client').items);
    for (const [id, event] of events) {
      const theirs = client.get(id)?.http as { traceparent: string };
      expect((event.http as { traceparent: string }).traceparent, id).toBe(theirs.traceparent);
    }
  });
});

describe.each<Process>(['client', 'server'])('the %s body in every encoding', (p) => {
  it('gives the same events from JSON, protobuf and gzip', () => {
    const json = fixtureEvents(p, 'json');
    expect(fixtureEvents(p, 'proto')).toEqual(json);
    expect(fixtureEvents(p, 'gzip')).toEqual(json);
  });
});

describe('a body with one bad span', () => {
  it('rejects that span with its position and reason, and maps all the others', () => {
    const body = fixtureJson('client');
    const spans = body.resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
    const at = spans.findIndex((s) => JSON.stringify(s).includes('"req-0012"'));
    spans[at] = { ...spans[at], traceId: 'not-hex' };
    const { items, rejected } = tracesToEvents(decodeOk(jsonBytes(body), 'json'));
    expect(items).toHaveLength(TABLE_REQUESTS - 1);
    expect(rejected).toEqual([{ ordinal: at + 1, spans: 1, reason: 'the trace id is not 16 bytes, or is all zero' }]);
  });
});
