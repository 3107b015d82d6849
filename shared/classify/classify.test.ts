import { describe, expect, it } from 'vitest';
import type { DiscoveryDocument } from '../discovery.ts';
import type { LensEvent } from '../event.ts';
import { type Classification, classify, explainRule, KINDS, NO_POLICY, type ServerPolicy } from './index.ts';
import { event, httpOnly, policy, rpcError, toolError } from './test-support.ts';

const P = policy();
const verdict = (e: LensEvent, p: ServerPolicy = P) => {
  const { bucket, kind, rule, evidence } = classify(e, p);
  // Every default outcome names a known rule and a kind from the closed set.
  expect(explainRule(rule)).toBeDefined();
  if (evidence !== 'override') expect(KINDS).toContain(kind);
  return [bucket, kind, rule, evidence];
};

describe('ok', () => {
  it.each([
    ['a 200 with a result', event({ http: { status: 200 }, response: { jsonrpc: '2.0', id: 1, result: {} } })],
    ['a 200 proxy line with no body', httpOnly(200)],
    ['a 202 notification ack', httpOnly(202)],
    ['a tool result with isError false', toolError('fine', { isError: false })],
    ['an event with nothing but the required fields', event()],
    ['a result beside error: null', event({ response: { jsonrpc: '2.0', id: 1, result: {}, error: null } })],
  ])('%s → ok', (_name, e) => {
    expect(verdict(e)).toEqual(['ok', 'ok', 'ok', 'none']);
  });

  it('is never changed by an override', () => {
    const p = policy(null, [
      { match: { httpStatus: 200 }, bucket: 'refusal', kind: 'forbidden' },
      { match: { rpcCode: -32603 }, bucket: 'transient', kind: 'server_error' },
    ]);
    expect(verdict(httpOnly(200), p)).toEqual(['ok', 'ok', 'ok', 'none']);
  });
});

describe('records whose log shows no outcome (ADR 18)', () => {
  it('a server event is unknown / server_event, whatever it carries', () => {
    const stderr = event({ record: 'server_event', timeout: true, http: { status: 500 } });
    expect(verdict(stderr)).toEqual(['unknown', 'server_event', 'record.server_event', 'none']);
  });

  it('a request logged without its outcome is unknown, never ok', () => {
    const seen = event({ record: 'outcome_unknown', request: { jsonrpc: '2.0', id: 3, method: 'tools/call' } });
    expect(verdict(seen)).toEqual(['unknown', 'outcome_unknown', 'record.outcome_unknown', 'none']);
  });
});

describe('overrides', () => {
  const p = policy(null, [
    { match: { rpcCode: -32003 }, bucket: 'throttled', kind: 'rate_limited' },
    { match: { httpStatus: 404 }, bucket: 'refusal', kind: 'not_declared' },
    { match: { rpcCode: -32000 }, bucket: 'transient', kind: 'gateway_blip' },
  ]);

  it('re-maps a typed JSON-RPC code, beating the defaults and the structured data', () => {
    expect(verdict(rpcError(-32003), p)).toEqual(['throttled', 'rate_limited', 'override.rpc_code', 'override']);
    const seed002 = rpcError(-32003, { reason: 'policy.budget_exhausted', retryable: false });
    expect(verdict(seed002, p)[2]).toBe('override.rpc_code');
  });

  it('re-maps a code recovered from SDK text', () => {
    expect(verdict(toolError('MCP error -32000: upstream hiccup'), p)).toEqual([
      'transient',
      'gateway_blip',
      'override.rpc_code',
      'override',
    ]);
  });

  it('re-maps an HTTP status, after the code', () => {
    expect(verdict(httpOnly(404), p)).toEqual(['refusal', 'not_declared', 'override.http_status', 'override']);
    expect(verdict(rpcError(-32000, undefined, 404), p)[2]).toBe('override.rpc_code');
  });

  it('does not apply to other codes and statuses', () => {
    expect(verdict(rpcError(-32050), p)).toEqual(['ambiguous', 'unknown_code', 'fallback.ambiguous', 'rpc_code']);
    expect(verdict(httpOnly(503), p)[2]).toBe('http.5xx');
  });

  it('returns a fresh object, so the operator kind is not a shared constant', () => {
    const first = classify(rpcError(-32003), p);
    expect(Object.isFrozen(first)).toBe(false);
    expect(Object.isFrozen(classify(httpOnly(503), p))).toBe(true);
  });
});

describe('rule 2: not supported', () => {
  it('reads -32601 as a refusal, even at HTTP 404 (MCP 2026-07-28), whatever the discovery document', () => {
    const expected = ['refusal', 'not_supported', 'rpc.method_not_found', 'rpc_code'];
    expect(verdict(rpcError(-32601))).toEqual(expected);
    expect(verdict(rpcError(-32601, undefined, 404))).toEqual(expected);
    expect(verdict(rpcError(-32601, undefined, 404), NO_POLICY)).toEqual(expected);
    expect(verdict(rpcError(-32601, undefined, 200, { protocol: 'a2a' }))).toEqual(expected);
  });

  it('reads 405 as a refusal', () => {
    expect(verdict(httpOnly(405))).toEqual(['refusal', 'not_supported', 'http.method_not_allowed', 'http_status']);
  });
});

describe('rule 3: 404 and the discovery document', () => {
  const withSession = { session: '9f1c' };

  it('cannot classify a 404 without a discovery document', () => {
    const expected = ['ambiguous', 'unclassifiable_no_discovery', 'http.404.no_discovery', 'http_status'];
    expect(verdict(httpOnly(404, '/mcp/mcp'), NO_POLICY)).toEqual(expected);
    expect(verdict(httpOnly(404, '/mcp', withSession), NO_POLICY)).toEqual(expected);
  });

  it('treats a 404 whose path is unknown like one without a document', () => {
    expect(verdict(event({ source: 'proxy', http: { method: 'POST', status: 404 } }))).toEqual([
      'ambiguous',
      'unclassifiable_no_discovery',
      'http.404.no_path',
      'http_status',
    ]);
  });

  it.each(['/mcp/mcp', '/mcp/sse', '/mcp/a2a/', '/sse'])('refuses 404 on undeclared %s', (path) => {
    expect(verdict(httpOnly(404, path))).toEqual(['refusal', 'not_declared', 'http.404.not_declared', 'http_status']);
  });

  it('declares per method where the document lists methods, per path where it does not', () => {
    const del = httpOnly(404, '/mcp', { http: { method: 'DELETE', path: '/mcp', status: 404 } });
    expect(verdict(del)[1]).toBe('not_declared');
    const health = httpOnly(404, '/health', { http: { method: 'DELETE', path: '/health', status: 404 } });
    expect(verdict(health)[1]).toBe('declared_path_404');
    expect(verdict(httpOnly(404, '/mcp?x=1'))[1]).toBe('declared_path_404');
  });

  it('reads a 404 on a declared endpoint for a request with a session as an expired session', () => {
    expect(verdict(httpOnly(404, '/mcp', withSession))).toEqual([
      'refusal',
      'session_expired',
      'http.404.session_expired',
      'http_status',
    ]);
    expect(verdict(httpOnly(404, '/mcp/mcp', withSession))[1]).toBe('not_declared');
    expect(verdict(httpOnly(404, '/mcp', { session: '' }))[1]).toBe('declared_path_404');
  });

  it('abstains on a 404 on a declared path without a session', () => {
    expect(verdict(httpOnly(404, '/mcp'))).toEqual([
      'ambiguous',
      'declared_path_404',
      'http.404.declared_path',
      'http_status',
    ]);
  });

  it('reads an agent card: its interface path and the card itself are declared', () => {
    const card: DiscoveryDocument = {
      format: 'a2a-agent-card',
      endpoints: [{ path: '/a2a/v1' }, { method: 'GET', path: '/.well-known/agent-card.json' }],
      methods: [],
    };
    const a2a = (path: string) => httpOnly(404, path, { protocol: 'a2a', http: { method: 'GET', path, status: 404 } });
    expect(verdict(a2a('/.well-known/agent.json'), policy(card))[1]).toBe('not_declared');
    expect(verdict(a2a('/.well-known/agent-card.json'), policy(card))[1]).toBe('declared_path_404');
  });
});

describe('the -32001 and -32003 collisions', () => {
  it('reads MCP -32001 (SDK "Session not found", HTTP 404) as an expired session, document or not', () => {
    const expected = ['refusal', 'session_expired', 'mcp.session_not_found', 'rpc_code'];
    expect(verdict(rpcError(-32001, undefined, 404, { session: 'gone' }))).toEqual(expected);
    expect(verdict(rpcError(-32001, undefined, 404), NO_POLICY)).toEqual(expected);
    expect(verdict(rpcError(-32001))).toEqual(expected);
  });

  it('lets a 401 speak over an MCP -32001 (servers reuse it for authentication)', () => {
    expect(verdict(rpcError(-32001, undefined, 401))).toEqual([
      'refusal',
      'unauthenticated',
      'http.request_repair',
      'http_status',
    ]);
  });

  it.each([
    [-32001, 'refusal', 'task_not_found'],
    [-32002, 'refusal', 'task_not_cancelable'],
    [-32003, 'refusal', 'push_notification_not_supported'],
    [-32004, 'refusal', 'unsupported_operation'],
    [-32005, 'refusal', 'media_type_unsupported'],
    [-32006, 'ambiguous', 'invalid_agent_response'],
    [-32007, 'refusal', 'extended_card_not_configured'],
    [-32008, 'refusal', 'extension_required'],
    [-32009, 'refusal', 'protocol_version_unsupported'],
  ])('A2A %i → %s / %s', (code, bucket, kind) => {
    expect(verdict(rpcError(code, undefined, 200, { protocol: 'a2a' }))).toEqual([
      bucket,
      kind,
      'a2a.code',
      'rpc_code',
    ]);
  });

  it('reads MCP -32003 bare as ambiguous and A2A -32003 as a refusal', () => {
    expect(verdict(rpcError(-32003))[0]).toBe('ambiguous');
    expect(verdict(rpcError(-32003, undefined, 200, { protocol: 'a2a' }))[0]).toBe('refusal');
  });

  it('does not read MCP-only codes on A2A', () => {
    expect(verdict(rpcError(-32020, undefined, 200, { protocol: 'a2a' }))[1]).toBe('unknown_code');
  });
});

describe('rule 4: request repair', () => {
  it.each([
    [-32602, 'invalid_params'],
    [-32600, 'invalid_request'],
    [-32700, 'malformed_message'],
    [-32002, 'resource_not_found'],
    [-32020, 'protocol_header_mismatch'],
    [-32021, 'client_capability_missing'],
    [-32022, 'protocol_version_unsupported'],
  ])('MCP %i → refusal / %s', (code, kind) => {
    expect(verdict(rpcError(code))).toEqual(['refusal', kind, 'rpc.request_repair', 'rpc_code']);
  });

  it.each([
    [400, 'invalid_request'],
    [401, 'unauthenticated'],
    [403, 'forbidden'],
    [406, 'media_type_not_acceptable'],
    [409, 'conflict'],
    [413, 'payload_too_large'],
    [415, 'media_type_unsupported'],
  ])('HTTP %i → refusal / %s', (status, kind) => {
    expect(verdict(httpOnly(status))).toEqual(['refusal', kind, 'http.request_repair', 'http_status']);
  });

  it('prefers a typed code to the status it travels with', () => {
    expect(verdict(rpcError(-32602, undefined, 400))).toEqual([
      'refusal',
      'invalid_params',
      'rpc.request_repair',
      'rpc_code',
    ]);
    expect(verdict(rpcError(-32002, undefined, 404, { session: 's' }))[1]).toBe('resource_not_found');
  });

  it('refuses 400 + -32000 (a server that meant -32601) by the HTTP status', () => {
    expect(verdict(rpcError(-32000, undefined, 400))).toEqual([
      'refusal',
      'invalid_request',
      'http.request_repair',
      'http_status',
    ]);
  });
});

describe('rule 5: rate and the moment', () => {
  it('reads 429 as throttled, even with a refusal code in the body', () => {
    const expected = ['throttled', 'rate_limited', 'http.429', 'http_status'];
    expect(verdict(httpOnly(429))).toEqual(expected);
    expect(verdict(rpcError(-32600, undefined, 429))).toEqual(expected);
  });

  it.each([
    [500, 'server_error'],
    [502, 'upstream_error'],
    [503, 'unavailable'],
    [504, 'upstream_timeout'],
    [507, 'server_error'],
  ])('HTTP %i → transient / %s', (status, kind) => {
    expect(verdict(httpOnly(status))).toEqual(['transient', kind, 'http.5xx', 'http_status']);
    expect(verdict(rpcError(-32601, undefined, status))[2]).toBe('http.5xx');
  });

  it('reads a timeout as transient', () => {
    expect(verdict(event({ http: { method: 'POST', path: '/mcp' }, timeout: true }))).toEqual([
      'transient',
      'timeout',
      'timeout',
      'timeout',
    ]);
  });

  it("reads nginx's 499 (the client closed the request) as a timeout: the client gave up waiting", () => {
    expect(verdict(httpOnly(499, '/mcp'))).toEqual(['transient', 'timeout', 'timeout', 'http_status']);
  });

  it('lets a status the proxy logged speak before the timeout', () => {
    expect(verdict(httpOnly(503, '/mcp', { timeout: true }))[2]).toBe('http.5xx');
  });
});

describe('rule 6: tool errors', () => {
  it('reads the SDK prefix of an isError result at HTTP 200 as the code it names', () => {
    expect(verdict(toolError('MCP error -32602: Unknown tool: foo'))).toEqual([
      'refusal',
      'invalid_params',
      'tool_error.sdk_text',
      'sdk_text',
    ]);
  });

  it.each([
    [-32601, 'not_supported'],
    [-32600, 'invalid_request'],
    [-32700, 'malformed_message'],
    [-32001, 'session_expired'],
    [-32002, 'resource_not_found'],
    [-32022, 'protocol_version_unsupported'],
  ])('SDK text with %i → refusal / %s', (code, kind) => {
    expect(verdict(toolError(`MCP error ${code}: whatever`))).toEqual([
      'refusal',
      kind,
      'tool_error.sdk_text',
      'sdk_text',
    ]);
  });

  it.each([
    ['plain prose', 'Record not found'],
    ['a code with no defined meaning', 'MCP error -32603: boom'],
    ['an unknown code', 'MCP error -32050: odd'],
    ['the prefix not at the start', 'Failed: MCP error -32602: Unknown tool'],
    ['no separator after the code', 'MCP error -32602 Unknown tool'],
  ])('reads %s as ambiguous / tool_error', (_name, text) => {
    expect(verdict(toolError(text))).toEqual(['ambiguous', 'tool_error', 'tool_error', 'is_error']);
  });

  it('only reads the first block, and only a text block', () => {
    const image = event({
      response: {
        result: {
          isError: true,
          content: [
            { type: 'image', data: '' },
            { type: 'text', text: 'MCP error -32602: x' },
          ],
        },
      },
    });
    expect(verdict(image)[1]).toBe('tool_error');
    expect(verdict(event({ response: { result: { isError: true } } }))[1]).toBe('tool_error');
  });
});

describe('rule 7: anything else', () => {
  it.each<[string, LensEvent, Classification]>([
    [
      '-32603 on HTTP 200',
      rpcError(-32603),
      { bucket: 'ambiguous', kind: 'internal_error', rule: 'fallback.ambiguous', evidence: 'rpc_code' },
    ],
    [
      'an unknown -32050',
      rpcError(-32050),
      { bucket: 'ambiguous', kind: 'unknown_code', rule: 'fallback.ambiguous', evidence: 'rpc_code' },
    ],
    [
      'a bare 410',
      httpOnly(410),
      { bucket: 'ambiguous', kind: 'unknown_status', rule: 'fallback.ambiguous', evidence: 'http_status' },
    ],
    [
      'an error without a numeric code',
      event({ response: { error: { code: '-32601', message: 'nope' } } }),
      { bucket: 'ambiguous', kind: 'unexplained_failure', rule: 'fallback.ambiguous', evidence: 'none' },
    ],
  ])('%s → ambiguous', (_name, e, expected) => {
    expect(classify(e, P)).toEqual(expected);
  });
});
