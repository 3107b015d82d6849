/**
 * DOMAIN.md section 10's rules, one at a time, over events built from frames as the store reads them: the era, the
 * multi round-trip request's rounds, the era probe, the repairs outside the identity, sessions of the 2025 era only.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../classify/index.ts';
import type { ServerPolicy } from '../classify/types.ts';
import { parseDiscovery } from '../discovery.ts';
import { validateEvent } from '../event.ts';
import { requestIdentity } from '../identity.ts';
import { auditDenials } from './denials.ts';
import { T0 } from './fixtures.ts';
import { toAnalysisEvent } from './from-event.ts';
import { replayGate } from './gate.ts';
import type { AnalysisEvent } from './types.ts';

const parsed = parseDiscovery({ endpoints: [{ method: 'POST', path: '/mcp' }] });
if (!parsed.ok) throw new Error(parsed.error.message);
const POLICY: ServerPolicy = { discovery: parsed.document, overrides: [] };

let n = 0;
function event(seconds: number, fields: Record<string, unknown>): AnalysisEvent {
  n++;
  const read = validateEvent({
    id: `e-${n}`,
    ts: T0 + seconds * 1000,
    source: 'client',
    client: 'agent',
    server: 'notes',
    http: { method: 'POST', path: '/mcp', status: 200 },
    ...fields,
  });
  if (!read.ok) throw new Error(read.error.message);
  const e = read.event;
  const identity = requestIdentity(e.server, e.request, e.protocol);
  return toAnalysisEvent(e, classify(e, POLICY), { id: e.id ?? '', seq: n, identity, counted: true });
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1' },
};
const call = (id: number, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = META) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'publish', arguments: { item: 'r-1' }, ...extra, _meta: meta },
});
const inputRequired = (id: number) => ({
  jsonrpc: '2.0',
  id,
  result: {
    resultType: 'input_required',
    inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Publish?' } } },
    requestState: 'v1.state.sig',
  },
});
const done = (id: number, text = 'Published', isError = false) => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text }], isError, resultType: 'complete' },
});
const answer = (action: 'accept' | 'decline' | 'cancel') => ({
  inputResponses: { confirm: action === 'accept' ? { action, content: { confirm: true } } : { action } },
  requestState: 'v1.state.sig',
});

function verdicts(events: readonly AnalysisEvent[]): string[] {
  const judged = replayGate(events);
  return events.map((e) => `${e.bucket}/${e.kind}:${judged.get(e.id)?.avoidable ? 'avoidable' : 'needed'}`);
}

describe('the era of a request', () => {
  it('is 2026 with the _meta envelope, 2025 without it or from initialize, null where nothing tells', () => {
    const modern = event(0, { request: call(1), response: done(1) });
    const legacy = event(1, { request: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, response: null });
    const init = event(2, {
      request: { jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
    });
    const stream = event(3, { http: { method: 'GET', path: '/mcp', status: 405 } });
    const card = event(4, { http: { method: 'GET', path: '/.well-known/mcp.json', status: 404 } });
    const proxy = event(5, {
      source: 'proxy',
      http: { method: 'POST', path: '/mcp', status: 200, mcpMethod: 'tools/list', protocolVersion: '2026-07-28' },
    });
    const a2a = event(6, { protocol: 'a2a', request: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} } });
    expect([modern, legacy, init, stream, card, proxy, a2a].map((e) => e.era)).toEqual([
      '2026',
      '2025',
      '2025',
      '2025',
      null,
      '2026',
      null,
    ]);
    expect(init.protocolVersion).toBe('2025-11-25');
    expect(proxy.rpcMethod).toBe('tools/list');
  });
});

describe('a multi round-trip request', () => {
  it('asks for input (pending, no success, no failure) and its answering round continues the call', () => {
    const rounds = [
      event(0, { request: call(1), response: inputRequired(1) }),
      event(1, { request: call(2, answer('accept')), response: done(2) }),
    ];
    expect(rounds.map((e) => e.continuation)).toEqual([false, true]);
    expect(verdicts(rounds)).toEqual(['pending/input_required:needed', 'ok/ok:needed']);
  });

  it('is a refusal by the user when the round declines or cancels, whatever the server answers', () => {
    for (const action of ['decline', 'cancel'] as const) {
      const round = event(1, { request: call(2, answer(action)), response: done(2, 'Done anyway') });
      expect([round.bucket, round.kind]).toEqual(['refusal', 'user_declined']);
    }
    // A transport failure of the round says it never got an answer: the status speaks.
    const failed = event(2, {
      http: { method: 'POST', path: '/mcp', status: 503 },
      request: call(3, answer('decline')),
      response: null,
    });
    expect([failed.bucket, failed.kind]).toEqual(['transient', 'unavailable']);
  });

  it('after a decline, makes the call sent again avoidable, and its continuation with it', () => {
    const trace = [
      event(0, { request: call(1), response: inputRequired(1) }),
      event(1, { request: call(2, answer('decline')), response: done(2, 'cancelled', true) }),
      event(2, { request: call(3), response: inputRequired(3) }),
      event(3, { request: call(4, answer('decline')), response: done(4, 'cancelled', true) }),
    ];
    expect(verdicts(trace)).toEqual([
      'pending/input_required:needed',
      'refusal/user_declined:needed',
      'pending/input_required:avoidable',
      'refusal/user_declined:avoidable',
    ]);
  });

  it('makes the call sent again without the answers avoidable: an ignored input request cannot progress', () => {
    const trace = [
      event(0, { request: call(1), response: inputRequired(1) }),
      event(1, { request: call(2), response: inputRequired(2) }),
      event(2, { request: call(3), response: inputRequired(3) }),
      event(3, { request: call(4, answer('accept')), response: done(4) }),
      event(4, { request: call(5), response: done(5) }),
    ];
    expect(verdicts(trace)).toEqual([
      'pending/input_required:needed',
      'pending/input_required:avoidable',
      'pending/input_required:avoidable',
      'ok/ok:needed',
      'ok/ok:needed',
    ]);
  });

  it('never lets a continuation count as a retry after a failure of its call', () => {
    const failed = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'boom' }], isError: true } };
    const trace = [
      event(0, { request: call(1), response: failed }),
      // The same call again is an identical retry after an ambiguous answer: avoidable.
      event(1, { request: call(2), response: inputRequired(2) }),
    ];
    expect(verdicts(trace)).toEqual(['ambiguous/tool_error:needed', 'pending/input_required:avoidable']);
    // A round that answers an input request the log holds is judged with the round that asked.
    const asked = [
      event(10, { client: 'other', request: call(1), response: inputRequired(1) }),
      event(11, { client: 'other', request: call(2, answer('accept')), response: failed }),
      event(12, { client: 'other', request: call(3), response: inputRequired(3) }),
    ];
    expect(verdicts(asked)).toEqual([
      'pending/input_required:needed',
      'ambiguous/tool_error:needed',
      'pending/input_required:avoidable',
    ]);
  });

  it('is no success that makes a denial not hold', () => {
    const declined = [
      event(0, { request: call(1), response: inputRequired(1) }),
      event(1, { request: call(2, answer('decline')), response: done(2, 'cancelled', true) }),
      event(2, { request: call(3), response: inputRequired(3) }),
    ];
    expect(auditDenials(declined).notHeld).toEqual([]);
  });
});

describe('the era probe', () => {
  const probe = (id: number, status: number) => ({
    http: { method: 'POST', path: '/mcp', status },
    request: { jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: META } },
    response:
      status === 400
        ? { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Session ID required' } }
        : { jsonrpc: '2.0', id, result: { supportedVersions: ['2026-07-28'], resultType: 'complete' } },
  });
  const initialize = (id: number) => ({
    request: { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
    response: { jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25' } },
  });

  it('of a 2026 client to a 2025-only server is negotiation, and probing again on the next connect avoidable', () => {
    const trace = [
      event(0, probe(1, 400)),
      event(1, initialize(2)),
      event(60, probe(3, 400)),
      event(61, initialize(4)),
    ];
    expect(verdicts(trace)).toEqual([
      'ok/era_legacy:needed',
      'ok/ok:needed',
      'ok/era_legacy:avoidable',
      'ok/ok:needed',
    ]);
  });

  it('answered by a 2026 server is an answer like any other', () => {
    expect(verdicts([event(0, probe(1, 200)), event(60, probe(2, 200))])).toEqual(['ok/ok:needed', 'ok/ok:needed']);
  });

  it('meets a 2025 client on a 2026 server: its GET is refused once needed, then avoidable', () => {
    const get = (s: number) => event(s, { http: { method: 'GET', path: '/mcp', status: 405 } });
    const trace = [event(0, initialize(1)), get(1), event(30, initialize(2)), get(31)];
    expect(trace.map((e) => e.era)).toEqual(['2025', '2025', '2025', '2025']);
    expect(verdicts(trace)).toEqual([
      'ok/ok:needed',
      'refusal/not_supported:needed',
      'ok/ok:needed',
      'refusal/not_supported:avoidable',
    ]);
  });
});

describe('repairs outside the identity', () => {
  const list = (id: number, version: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/list',
    params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': version } },
  });
  const unsupported = (id: number) => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } },
  });
  const ok = (id: number) => ({ jsonrpc: '2.0', id, result: { tools: [], resultType: 'complete' } });

  it('-32022 blocks the refused version only: the corrected request is needed, the unchanged re-send avoidable', () => {
    const status = (code: number) => ({ http: { method: 'POST', path: '/mcp', status: code } });
    const trace = [
      event(0, { ...status(400), request: list(1, '2099-01-01'), response: unsupported(1) }),
      event(1, { ...status(400), request: list(2, '2099-01-01'), response: unsupported(2) }),
      event(2, { request: list(3, '2026-07-28'), response: ok(3) }),
    ];
    expect(verdicts(trace)).toEqual([
      'refusal/protocol_version_unsupported:needed',
      'refusal/protocol_version_unsupported:avoidable',
      'ok/ok:needed',
    ]);
    expect(auditDenials(trace).notHeld).toEqual([]);
  });

  it('-32020 blocks nothing: no record says which header the next request carried', () => {
    const mismatch = {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32020, message: 'header mismatch', data: { mismatch: { header: 'other' } } },
    };
    const trace = [
      event(0, { http: { method: 'POST', path: '/mcp', status: 400 }, request: call(1), response: mismatch }),
      event(1, { request: call(2), response: done(2) }),
    ];
    expect(verdicts(trace)).toEqual(['refusal/protocol_header_mismatch:needed', 'ok/ok:needed']);
    expect(auditDenials(trace).notHeld).toEqual([]);
  });

  it('a rejected requestState is invalid_request_state; -32602 with a reason but no retryable is no policy', () => {
    const rejected = event(0, {
      request: call(1, { requestState: 'forged' }),
      response: {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32602, message: 'Invalid request state', data: { reason: 'invalid_request_state' } },
      },
    });
    expect([rejected.bucket, rejected.kind, rejected.rule]).toEqual([
      'refusal',
      'invalid_request_state',
      'rpc.request_repair',
    ]);
    expect(rejected.continuation).toBe(true);
  });
});

describe('sessions', () => {
  const expired = (s: number, session: string, meta: Record<string, unknown> | null) =>
    event(s, {
      session,
      http: { method: 'POST', path: '/mcp', status: 404 },
      request: meta === null ? { jsonrpc: '2.0', id: s, method: 'tools/list', params: {} } : call(s, {}, meta),
      response: { jsonrpc: '2.0', id: s, error: { code: -32001, message: 'Session not found' } },
    });

  it('scope a refusal to its session in the 2025 era only; a 2026 request has none, its key is blocked', () => {
    // 2025: a new session starts clean.
    expect(verdicts([expired(0, 'a', null), expired(1, 'b', null)]).map((v) => v.split(':')[1])).toEqual([
      'needed',
      'needed',
    ]);
    // 2026-07-28: a session id the server never issued is no session; the same request again is refused again.
    expect(verdicts([expired(10, 'a', META), expired(11, 'b', META)]).map((v) => v.split(':')[1])).toEqual([
      'needed',
      'avoidable',
    ]);
  });
});
