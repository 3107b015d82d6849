import { describe, expect, it } from 'vitest';
import type { LensEvent } from './event.ts';
import { columnText, correlationOf, MAX_DERIVED_TEXT, rpcErrorCodeOf, rpcMethodOf } from './frames.ts';

const event = (fields: Partial<LensEvent>): LensEvent => ({
  ts: 0,
  source: 'client',
  client: 'c',
  server: 's',
  protocol: 'mcp',
  ...fields,
});

describe('what the frames give the columns', () => {
  it('keeps a JSON-RPC code only within 32 bits', () => {
    const withCode = (code: unknown) => event({ response: { jsonrpc: '2.0', id: 1, error: { code, message: 'x' } } });
    expect(rpcErrorCodeOf(withCode(-32602))).toBe(-32602);
    expect(rpcErrorCodeOf(withCode(2 ** 31))).toBeNull();
    expect(rpcErrorCodeOf(withCode(-(2 ** 31) - 1))).toBeNull();
    expect(rpcErrorCodeOf(withCode(1.5))).toBeNull();
  });

  it('removes NUL from a method and drops one too long to be a name', () => {
    expect(rpcMethodOf(event({ request: { method: 'tools/\u0000call' } }))).toBe('tools/call');
    expect(rpcMethodOf(event({ request: { method: 'x'.repeat(MAX_DERIVED_TEXT + 1) } }))).toBeNull();
    expect(columnText('\u0000')).toBeNull();
    expect(columnText('a\uDC00')).toBe('a\uFFFD');
  });

  it('ignores a traceparent too long to be one (W3C traceparents are 55 characters)', () => {
    const traced = (traceparent: string) =>
      event({ session: 's', request: { id: 1, method: 'tools/call', params: { _meta: { traceparent } } } });
    expect(correlationOf(traced('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'))).toMatch(/^tp:/);
    // Falls back to the session and JSON-RPC id.
    expect(correlationOf(traced('0'.repeat(9000)))).toMatch(/^rpc:/);
  });
});
