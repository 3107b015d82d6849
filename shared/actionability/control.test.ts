import { describe, expect, it } from 'vitest';
import { event, rpcError, toolError } from '../classify/test-support.ts';
import type { LensEvent } from '../event.ts';
import { actionabilityOf, profileString } from './index.ts';

const control = (e: LensEvent) => {
  const read = actionabilityOf(e);
  if (read === undefined) throw new Error('not a failure');
  return { profile: profileString(read.control.profile), evidence: read.control.evidence };
};

/** An isError tools/call result carrying `fields` beside its text. */
const toolResult = (fields: Record<string, unknown>, text = 'failed') => toolError(text, fields);

describe('control view: D', () => {
  it('a JSON-RPC error earns D from response.error; an unknown code earns nothing more', () => {
    expect(control(rpcError(-32099))).toEqual({ profile: '100000', evidence: { D: 'response.error' } });
    expect(control(rpcError(-32603)).profile).toBe('100000');
  });

  it('isError earns D and not P', () => {
    expect(control(toolError('something broke'))).toEqual({
      profile: '100000',
      evidence: { D: 'response.result.isError' },
    });
  });

  it('a success-shaped error earns nothing: at HTTP 200 it is a hidden failure, 000000 in the control view', () => {
    const shaped = (status: number) =>
      event({
        http: { method: 'POST', path: '/mcp', status },
        response: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Error: no such record' }] } },
      });
    expect(control(shaped(200))).toEqual({ profile: '000000', evidence: {} });
    expect(actionabilityOf(shaped(200))?.hidden).toEqual({ failure: true, throttle: false });
    expect(control(shaped(400))).toEqual({ profile: '000000', evidence: {} });
    expect(actionabilityOf(shaped(400))?.hidden).toEqual({ failure: false, throttle: false });
  });
});

describe('control view: typed codes', () => {
  it('a bare -32602 earns D and P (broad request repair) but not C', () => {
    expect(control(rpcError(-32602))).toEqual({
      profile: '110000',
      evidence: { D: 'response.error', P: 'response.error.code' },
    });
    expect(control(rpcError(-32600)).profile).toBe('110000');
  });

  it('a code that names its cause earns C: -32601, -32700, MCP -32001 and -32002, A2A -32001', () => {
    for (const code of [-32601, -32700, -32001, -32002, -32022]) {
      expect(control(rpcError(code)), String(code)).toMatchObject({
        profile: '111000',
        evidence: { C: 'response.error.code' },
      });
    }
    expect(control(rpcError(-32001, undefined, 200, { protocol: 'a2a' })).profile).toBe('111000');
    // A2A's -32006 (invalid agent response) has no defined policy; bare MCP -32003 means nothing.
    expect(control(rpcError(-32006, undefined, 200, { protocol: 'a2a' })).profile).toBe('100000');
    expect(control(rpcError(-32003)).profile).toBe('100000');
  });

  it('the SDK text prefix `MCP error -32602:` is content: the isError result stays 100000', () => {
    expect(control(toolError('MCP error -32602: Tool nope not found')).profile).toBe('100000');
  });

  it('JSON serialised inside a text block is opaque', () => {
    const text = JSON.stringify({ error: { code: 'x.invalid', policy: 'revise_arguments', target: '/a' } });
    expect(control(toolError(text)).profile).toBe('100000');
  });
});

describe('control view: structured reasons', () => {
  it("seed 002's reason earns C, retryable P and R, resetsAt R", () => {
    const data = { reason: 'policy.budget_exhausted', retryable: false, resetsAt: '2026-03-11T00:00:00Z' };
    expect(control(rpcError(-32003, data))).toEqual({
      profile: '111001',
      evidence: {
        D: 'response.error',
        P: 'response.error.data.retryable',
        C: 'response.error.data.reason',
        R: 'response.error.data.resetsAt',
      },
    });
    // A reason alone names a cause and selects nothing.
    expect(control(rpcError(-32003, { reason: 'policy.scope' })).profile).toBe('101000');
    // policy.rate_limit decides throttled without retryable.
    expect(control(rpcError(-32003, { reason: 'policy.rate_limit' })).evidence.P).toBe('response.error.data.reason');
  });

  it("seed 003's slug earns P and C", () => {
    expect(control(rpcError(-32000, { error: 'rate_limited' }, 429))).toEqual({
      profile: '111000',
      evidence: { D: 'response.error', P: 'response.error.data.error', C: 'response.error.data.error' },
    });
    // An unknown slug says nothing.
    expect(control(rpcError(-32000, { error: 'handler' })).profile).toBe('100000');
  });

  it("AdCP's adcp_error: recovery P, code C, field T, retry_after R; in error.data or structuredContent", () => {
    const adcp = { code: 'BUDGET_TOO_LOW', recovery: 'correctable', field: 'packages[0].budget', retry_after: 5 };
    expect(control(rpcError(-32000, { adcp_error: adcp })).evidence).toEqual({
      D: 'response.error',
      P: 'response.error.data.adcp_error.recovery',
      C: 'response.error.data.adcp_error.code',
      T: 'response.error.data.adcp_error.field',
      R: 'response.error.data.adcp_error.retry_after',
    });
    const content = control(toolResult({ structuredContent: { adcp_error: { code: 'X', recovery: 'terminal' } } }));
    expect(content).toEqual({
      profile: '111000',
      evidence: {
        D: 'response.result.isError',
        P: 'response.result.structuredContent.adcp_error.recovery',
        C: 'response.result.structuredContent.adcp_error.code',
      },
    });
  });

  it("A2A's google.rpc details: ErrorInfo's reason C, RetryInfo R, BadRequest's field T", () => {
    const details = [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' },
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'params.id' }] },
    ];
    // -32603 has no policy and no cause: every bit past D is the details'.
    expect(control(rpcError(-32603, details, 200, { protocol: 'a2a' }))).toEqual({
      profile: '101101',
      evidence: {
        D: 'response.error',
        C: 'response.error.data[0].reason',
        T: 'response.error.data[2].fieldViolations[0].field',
        R: 'response.error.data[1].retryDelay',
      },
    });
  });

  it("seed 004's control envelope earns every bit its fields carry", () => {
    const envelope = {
      schema: 'urn:example:mcp-error:1',
      code: 'example.mcp.arguments.invalid_type',
      target: { kind: 'parameter', pointer: '/walletAddress' },
      policy: 'revise_arguments',
      retry: { sameRequest: 'unsafe' },
      sideEffects: 'none_committed',
    };
    expect(control(toolResult({ error: envelope }))).toEqual({
      profile: '111101',
      evidence: {
        D: 'response.result.isError',
        P: 'response.result.error.policy',
        C: 'response.result.error.code',
        T: 'response.result.error.target',
        R: 'response.result.error.retry.sameRequest',
      },
    });
    const repaired = { ...envelope, repair: { arguments: { walletAddress: '0xabc' } } };
    expect(control(toolResult({ error: repaired })).profile).toBe('111111');
    expect(control(toolResult({ error: { policy: 'retry_later', retry: { afterMs: 500 } } })).evidence).toEqual({
      D: 'response.result.isError',
      P: 'response.result.error.policy',
      R: 'response.result.error.retry.afterMs',
    });
    // A policy outside the vocabulary selects nothing, but the envelope's other fields still count.
    expect(control(toolResult({ error: { policy: 'dance', code: 'x.y' } })).profile).toBe('101000');
  });

  it('a structured reason on a successful result is not read: success-shaped stays success', () => {
    const ok = event({
      http: { method: 'POST', path: '/mcp', status: 200 },
      response: { jsonrpc: '2.0', id: 1, result: { structuredContent: { error: { policy: 'revise_arguments' } } } },
    });
    expect(actionabilityOf(ok)).toBeUndefined();
  });
});
