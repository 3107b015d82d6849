import { describe, expect, it } from 'vitest';
import { validateEvent } from '../../shared/event.ts';
import { rpcMethodOf, rpcNameOf } from '../../shared/frames.ts';
import { type TracesOptions, tracesToEvents } from '../../shared/otlp/index.ts';
import {
  byRequestId,
  decodeOk,
  fixtureEvents,
  fixtureJson,
  jsonBytes,
  otlpJson,
  type Process,
  type SpanInput,
} from './support.ts';

/**
 * The protocol revision and MCP 2026-07-28's request headers from traces (DOMAIN.md sections 9 and 10): the
 * conventions' `mcp.protocol.version` on an MCP span, and the `mcp-method`, `mcp-name`, `mcp-protocol-version`
 * request headers an HTTP instrumentation captured.
 */

const CLIENT = 3;
const SERVER = 2;

function events(service: string, spans: readonly SpanInput[], options: TracesOptions = {}) {
  const { items, rejected } = tracesToEvents(
    decodeOk(jsonBytes(otlpJson(service, 'mcp-otel', spans)), 'json'),
    options,
  );
  expect(rejected).toEqual([]);
  return items.map((item) => {
    const parsed = validateEvent(item.value);
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(parsed.warnings).toEqual([]);
    return { value: item.value, event: parsed.event };
  });
}

/** The one event the spans make. */
function one(service: string, spans: readonly SpanInput[]) {
  const made = events(service, spans);
  expect(made).toHaveLength(1);
  return made[0] as (typeof made)[number];
}

const encoded = (name: string) => `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;

describe('the recorded bodies (SDK 1.32.2 clients speak 2025-11-25; the recorder captured mcp-protocol-version)', () => {
  /** x-request-id → the `mcp-protocol-version` its HTTP span captured, read straight from the JSON body. */
  function capturedVersions(process: Process): Map<string, string | undefined> {
    const found = new Map<string, string | undefined>();
    for (const resource of fixtureJson(process).resourceSpans) {
      for (const scope of resource.scopeSpans) {
        for (const span of scope.spans) {
          const attributes = span.attributes as {
            key: string;
            value: { arrayValue?: { values: { stringValue: string }[] } };
          }[];
          const first = (key: string) =>
            attributes.find((a) => a.key === key)?.value.arrayValue?.values[0]?.stringValue;
          const id = first('http.request.header.x-request-id') ?? first('http.response.header.x-request-id');
          if (id !== undefined) found.set(id, first('http.request.header.mcp-protocol-version'));
        }
      }
    }
    return found;
  }

  it.each(['client', 'server'] as const)(
    'give each %s event the version its HTTP span captured, none where none was',
    (process) => {
      const captured = capturedVersions(process);
      const byId = byRequestId(fixtureEvents(process).items);
      expect(byId.size).toBe(13);
      for (const [id, value] of byId) {
        expect(captured.has(id), id).toBe(true);
        expect((value.http as { protocolVersion?: string }).protocolVersion, id).toBe(captured.get(id));
      }
      // initialize (no version agreed yet) and the plain fetch of the 404 probe sent none; the other 11 did.
      expect(
        [...byId]
          .filter(([, v]) => (v.http as { protocolVersion?: string }).protocolVersion === undefined)
          .map(([id]) => id)
          .sort(),
      ).toEqual(['req-0001', 'req-0012']);
      expect(new Set([...captured.values()])).toEqual(new Set([undefined, '2025-11-25']));
    },
  );
});

describe('mcp.protocol.version on an MCP span (the conventions)', () => {
  const toolsCall = (attributes: SpanInput['attributes'] = {}): SpanInput => ({
    spanId: '1000000000000001',
    name: 'tools/call publish',
    kind: CLIENT,
    attributes: {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'publish',
      'server.address': 'notes.example',
      'mcp.protocol.version': '2026-07-28',
      ...attributes,
    },
  });

  it("is the event's http.protocolVersion, its only HTTP fact when no HTTP span carried the request", () => {
    const only = one('harbor-agent', [toolsCall()]);
    expect(only.value.http).toEqual({ protocolVersion: '2026-07-28' });
    expect(only.event.http).toEqual({ protocolVersion: '2026-07-28' });
    // The method and the name travel in the frame rebuilt from the span.
    expect(only.value.request).toEqual({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'publish' } });
    expect(rpcMethodOf(only.event)).toBe('tools/call');
    expect(rpcNameOf(only.event)).toBe('publish');
  });

  it('joins the HTTP facts of the span that carried the request', () => {
    const only = one('harbor-agent', [
      toolsCall(),
      {
        spanId: '2000000000000002',
        parentSpanId: '1000000000000001',
        name: 'POST',
        kind: CLIENT,
        attributes: {
          'http.request.method': 'POST',
          'url.full': 'http://notes.example/mcp',
          'http.response.status_code': 200,
        },
      },
    ]);
    expect(only.value.http).toMatchObject({ method: 'POST', path: '/mcp', status: 200, protocolVersion: '2026-07-28' });
  });

  it('yields to the header the request carried, where an HTTP span captured it', () => {
    const only = one('harbor-agent', [
      toolsCall({ 'mcp.protocol.version': '2026-07-28' }),
      {
        spanId: '2000000000000002',
        parentSpanId: '1000000000000001',
        name: 'POST',
        kind: CLIENT,
        attributes: {
          'http.request.method': 'POST',
          'url.full': 'http://notes.example/mcp',
          'http.response.status_code': 400,
          'http.request.header.mcp-protocol-version': ['2099-01-01'],
        },
      },
    ]);
    expect(only.value.http).toMatchObject({ status: 400, protocolVersion: '2099-01-01' });
  });

  it('is absent where the span has none, as before', () => {
    const only = one('harbor-agent', [toolsCall({ 'mcp.protocol.version': '' })]);
    expect(only.value).not.toHaveProperty('http');
  });

  it("reaches a server's record of a request it received", () => {
    const only = one('atlas-notes', [
      {
        spanId: '3000000000000003',
        name: 'POST',
        kind: SERVER,
        attributes: { 'http.request.method': 'POST', 'url.path': '/mcp', 'http.response.status_code': 200 },
      },
      {
        spanId: '4000000000000004',
        parentSpanId: '3000000000000003',
        name: 'server/discover',
        kind: SERVER,
        attributes: { 'mcp.method.name': 'server/discover', 'mcp.protocol.version': '2026-07-28' },
      },
    ]);
    expect(only.value).toMatchObject({
      source: 'proxy',
      server: 'atlas-notes',
      http: { method: 'POST', path: '/mcp', status: 200, protocolVersion: '2026-07-28' },
      request: { method: 'server/discover' },
    });
  });
});

describe('captured mcp-method, mcp-name and mcp-protocol-version request headers', () => {
  const httpServer = (headers: Record<string, string[]>): SpanInput => ({
    spanId: '3000000000000003',
    name: 'POST',
    kind: SERVER,
    attributes: {
      'http.request.method': 'POST',
      'url.path': '/mcp',
      'http.response.status_code': 404,
      ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [`http.request.header.${k}`, v])),
    },
  });

  it('make an HTTP span with no MCP span MCP traffic, and give its frameless event the method and the name', () => {
    const only = one('atlas-notes', [
      httpServer({ 'mcp-method': ['tasks/get'], 'mcp-name': ['task-0001'], 'mcp-protocol-version': ['2026-07-28'] }),
    ]);
    expect(only.value.request).toBeUndefined();
    expect(only.value.http).toEqual({
      method: 'POST',
      path: '/mcp',
      status: 404,
      mcpMethod: 'tasks/get',
      mcpName: 'task-0001',
      protocolVersion: '2026-07-28',
    });
    expect(rpcMethodOf(only.event)).toBe('tasks/get');
    expect(rpcNameOf(only.event)).toBe('task-0001');
  });

  it('decode a Base64-encoded name, and keep an undecodable one as captured', () => {
    const decoded = one('atlas-notes', [
      httpServer({ 'mcp-method': ['tools/call'], 'mcp-name': [encoded('tööl_unicode')] }),
    ]);
    expect(decoded.event.http?.mcpName).toBe('tööl_unicode');
    const kept = one('atlas-notes', [httpServer({ 'mcp-method': ['tools/call'], 'mcp-name': ['=?base64?%%?='] })]);
    expect(kept.event.http?.mcpName).toBe('=?base64?%%?=');
  });

  it('are MCP traffic each alone; an HTTP span with no MCP header or span is nothing', () => {
    expect(events('atlas-notes', [httpServer({})])).toEqual([]);
    for (const header of ['mcp-method', 'mcp-name', 'mcp-protocol-version']) {
      expect(events('atlas-notes', [httpServer({ [header]: ['x'] })]), header).toHaveLength(1);
    }
  });
});
