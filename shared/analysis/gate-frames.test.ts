import { describe, expect, it } from 'vitest';
import { classify } from '../classify/index.ts';
import type { ServerPolicy } from '../classify/types.ts';
import { parseDiscovery } from '../discovery.ts';
import { validateEvent } from '../event.ts';
import { requestIdentity } from '../identity.ts';
import { T0 } from './fixtures.ts';
import { toAnalysisEvent } from './from-event.ts';
import { replayGate } from './gate.ts';
import type { AnalysisEvent } from './types.ts';

/** The gate over events as logs carry them: frames read, classified and identified as the store does. */
const parsed = parseDiscovery({
  endpoints: [
    { method: 'POST', path: '/a2a/jsonrpc' },
    { method: 'POST', path: '/mcp' },
  ],
});
if (!parsed.ok) throw new Error(parsed.error.message);
const POLICY: ServerPolicy = { discovery: parsed.document, overrides: [] };

let n = 0;
function event(seconds: number, fields: Record<string, unknown>): AnalysisEvent {
  n++;
  const read = validateEvent({
    id: `e-${n}`,
    ts: T0 + seconds * 1000,
    source: 'client',
    client: 'c',
    server: 's',
    ...fields,
  });
  if (!read.ok) throw new Error(read.error.message);
  const e = read.event;
  const identity = requestIdentity(e.server, e.request, e.protocol);
  return toAnalysisEvent(e, classify(e, POLICY), { id: e.id ?? '', seq: n, identity, counted: true });
}

function needed(events: readonly AnalysisEvent[]): string[] {
  const verdicts = replayGate(events);
  return events.map((e) => (verdicts.get(e.id)?.avoidable ? 'avoidable' : 'needed'));
}

const sendMessage = (text: string, messageId: string) => ({
  jsonrpc: '2.0',
  id: messageId,
  method: 'message/send',
  params: { message: { role: 'user', messageId, parts: [{ kind: 'text', text }] } },
});

describe('the gate over real frames', () => {
  it("keeps seed 000's 22 → 3 when every probe carries its own A2A messageId", () => {
    const paths = ['/', '/a2a', '/rpc'];
    const probes = Array.from({ length: 22 }, (_, i) =>
      event(i * 2, {
        protocol: 'a2a',
        http: { method: 'POST', path: paths[i % 3], status: 404 },
        request: sendMessage('hello, are you an agent?', `m-${i}-${Math.random()}`),
        response: null,
      }),
    );
    expect(needed(probes).filter((v) => v === 'needed')).toHaveLength(3);
    // Without its messageId the message is one request: the 22 probes share one identity.
    expect(new Set(probes.map((e) => e.identity)).size).toBe(1);
  });

  it('an A2A series with fresh message ids is one identity, refused once and avoidable after', () => {
    const refused = { error: { code: -32004, message: 'Unsupported operation' } };
    const series = [0, 1, 2].map((s) =>
      event(s, {
        protocol: 'a2a',
        http: { method: 'POST', path: '/a2a/jsonrpc', status: 200 },
        request: sendMessage('archive it', `m-${s}`),
        response: { jsonrpc: '2.0', id: `m-${s}`, ...refused },
      }),
    );
    expect(needed(series)).toEqual(['needed', 'avoidable', 'avoidable']);
  });

  it('lets a policy.rate_limit denial lapse after its 60 s TTL', () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { q: 'x' } } };
    const denied = {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32003, message: 'Slow down', data: { reason: 'policy.rate_limit', retryable: true } },
    };
    const http = { method: 'POST', path: '/mcp', status: 200 };
    const trace = [
      event(0, { http, request: call, response: denied }),
      event(30, { http, request: call, response: denied }),
      event(61, { http, request: call, response: { jsonrpc: '2.0', id: 1, result: { content: [] } } }),
    ];
    expect(trace.map((e) => e.bucket)).toEqual(['throttled', 'throttled', 'ok']);
    expect(needed(trace)).toEqual(['needed', 'avoidable', 'needed']);
  });

  it('lets a refusal with resetsAt lapse there, and not before', () => {
    const ask = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'report', arguments: {} } };
    const resetsAt = new Date(T0 + 120_000).toISOString();
    const denial = {
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32003,
        message: 'Budget',
        data: { reason: 'policy.budget_exhausted', retryable: false, resetsAt },
      },
    };
    const http = { method: 'POST', path: '/mcp', status: 200 };
    const trace = [0, 119, 121].map((s) => event(s, { http, request: ask, response: denial }));
    expect(trace.map((e) => e.bucket)).toEqual(['refusal', 'refusal', 'refusal']);
    expect(needed(trace)).toEqual(['needed', 'avoidable', 'needed']);
  });

  it('reads retryAfter as the header text and as an HTTP-date', () => {
    const ask = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const at = (s: number) => new Date(T0 + s * 1000).toUTCString();
    for (const retryAfter of ['10', at(10)]) {
      const trace = [0, 5, 11].map((s) =>
        event(s, { http: { method: 'POST', path: '/mcp', status: s === 0 ? 429 : 200, retryAfter }, request: ask }),
      );
      expect(needed(trace)).toEqual(['needed', 'avoidable', 'needed']);
    }
  });
});
