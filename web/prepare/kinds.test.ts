import { describe, expect, it } from 'vitest';
import type { ServerDetail } from '../queries/servers.ts';
import { codeParts, kindRows } from './kinds.ts';

const counts: ServerDetail['counts'] = {
  total: 110,
  avoidable: 0,
  buckets: { ok: 10, pending: 0, unknown: 0, refusal: 70, transient: 0, throttled: 30, ambiguous: 0 },
  kinds: {
    ok: { ok: 10 },
    refusal: { not_declared: 40, invalid_params: 30 },
    throttled: { rate_limited: 30 },
    transient: { unavailable: 0 },
  },
};

describe('kinds and codes of a server', () => {
  it('lists failed kinds, most first, ties in bucket order, with their share of the failures', () => {
    expect(kindRows(counts)).toEqual([
      { bucket: 'refusal', kind: 'not_declared', requests: 40, share: 0.4 },
      { bucket: 'refusal', kind: 'invalid_params', requests: 30, share: 0.3 },
      { bucket: 'throttled', kind: 'rate_limited', requests: 30, share: 0.3 },
    ]);
    const buckets = { ok: 5, pending: 0, unknown: 0, refusal: 0, transient: 0, throttled: 0, ambiguous: 0 };
    const quiet = { total: 5, avoidable: 0, buckets, kinds: { ok: { ok: 5 } } };
    expect(kindRows(quiet)).toEqual([]);
  });

  it('lists kinds named like Object.prototype members as kinds', () => {
    // As the browser reads /servers/:server: JSON.parse makes `__proto__` an own member.
    const hostile: ServerDetail['counts'] = JSON.parse(
      '{"total":10,"avoidable":0,"buckets":{"ok":0,"refusal":6,"transient":0,"throttled":4,"ambiguous":0},' +
        '"kinds":{"refusal":{"__proto__":4,"constructor":2},"throttled":{"toString":4}}}',
    );
    expect(kindRows(hostile)).toEqual([
      { bucket: 'refusal', kind: '__proto__', requests: 4, share: 0.4 },
      { bucket: 'throttled', kind: 'toString', requests: 4, share: 0.4 },
      { bucket: 'refusal', kind: 'constructor', requests: 2, share: 0.2 },
    ]);
  });

  it('names a code pair, one code, or its absence', () => {
    expect(codeParts({ rpcCode: -32602, httpStatus: 200 })).toEqual(['JSON-RPC -32602', 'HTTP 200']);
    expect(codeParts({ rpcCode: null, httpStatus: 404 })).toEqual(['HTTP 404']);
    expect(codeParts({ rpcCode: -32001, httpStatus: null })).toEqual(['JSON-RPC -32001']);
    expect(codeParts({ rpcCode: null, httpStatus: null })).toEqual(['no code']);
  });
});
