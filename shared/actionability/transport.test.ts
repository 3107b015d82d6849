import { describe, expect, it } from 'vitest';
import { event, httpOnly, rpcError, toolError } from '../classify/test-support.ts';
import type { LensEvent } from '../event.ts';
import { actionabilityOf, profileString } from './index.ts';

const both = (e: LensEvent) => {
  const read = actionabilityOf(e);
  if (read === undefined) throw new Error('not a failure');
  return [profileString(read.control.profile), profileString(read.transport.profile), read.transport.evidence];
};

describe('transport view', () => {
  it('a 429 with Retry-After earns D, P, C and R there, nothing in the control view', () => {
    const e = httpOnly(429, '/mcp', { http: { method: 'POST', path: '/mcp', status: 429, retryAfter: 2 } });
    expect(both(e)).toEqual([
      '000000',
      '111001',
      { D: 'http.status', P: 'http.status', C: 'http.status', R: 'http.retryAfter' },
    ]);
  });

  it('a status selects a policy only where its meaning needs no discovery document: 400 and 5xx yes, 404 no', () => {
    expect(both(httpOnly(400))[1]).toBe('110000');
    expect(both(httpOnly(500))[1]).toBe('110000');
    expect(both(httpOnly(502))[1]).toBe('111000');
    expect(both(httpOnly(401))[1]).toBe('111000');
    expect(both(httpOnly(404))[1]).toBe('100000');
  });

  it("keeps the frame's evidence for a bit both earn, and adds what the status adds", () => {
    expect(both(rpcError(-32602, undefined, 400))).toEqual([
      '110000',
      '110000',
      { D: 'response.error', P: 'response.error.code' },
    ]);
    const [control, transport, evidence] = both({ ...toolError('x'), http: { status: 401, retryAfter: 9 } });
    expect([control, transport]).toEqual(['100000', '111001']);
    expect(evidence).toEqual({
      D: 'response.result.isError',
      P: 'http.status',
      C: 'http.status',
      R: 'http.retryAfter',
    });
  });

  it('a timeout is a failure that neither view can act on', () => {
    expect(both(event({ timeout: true }))).toEqual(['000000', '000000', {}]);
  });
});
