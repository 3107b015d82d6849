import { describe, expect, it } from 'vitest';
import { bodyOf, draftsOf, faultPlace, fieldAt } from './overrides.ts';

describe('override drafts', () => {
  it('turns stored overrides into editor rows and back into the PUT body', () => {
    const drafts = draftsOf([
      { match: { rpcCode: -32003 }, bucket: 'throttled', kind: 'gateway_rate_limit' },
      { match: { httpStatus: 404 }, bucket: 'refusal', kind: 'gone' },
    ]);
    expect(drafts).toEqual([
      { field: 'rpcCode', code: '-32003', bucket: 'throttled', kind: 'gateway_rate_limit' },
      { field: 'httpStatus', code: '404', bucket: 'refusal', kind: 'gone' },
    ]);
    expect(bodyOf(drafts)).toEqual({
      ok: true,
      body: {
        overrides: [
          { rpcCode: -32003, bucket: 'throttled', kind: 'gateway_rate_limit' },
          { httpStatus: 404, bucket: 'refusal', kind: 'gone' },
        ],
      },
    });
    expect(bodyOf([])).toEqual({ ok: true, body: { overrides: [] } });
  });

  it('trims what was typed, and refuses a code that is not a whole number, naming its row', () => {
    const draft = { field: 'httpStatus', code: ' 429 ', bucket: 'refusal', kind: ' quota ' } as const;
    expect(bodyOf([draft])).toMatchObject({ ok: true, body: { overrides: [{ httpStatus: 429, kind: 'quota' }] } });
    for (const code of ['', '  ', '4.5', 'abc']) {
      expect(bodyOf([draft, { ...draft, code }])).toEqual({
        ok: false,
        row: 1,
        message: 'the HTTP status must be a whole number',
      });
    }
  });

  it("reads the API's field as a row and an input", () => {
    expect(fieldAt('overrides.2.kind')).toEqual({ row: 2, input: 'kind' });
    expect(fieldAt('overrides.0.httpStatus')).toEqual({ row: 0, input: 'code' });
    expect(fieldAt('overrides.1.rpcCode')).toEqual({ row: 1, input: 'code' });
    expect(fieldAt('overrides.3')).toEqual({ row: 3, input: null });
    expect(fieldAt('overrides')).toBeNull();
    expect(fieldAt(null)).toBeNull();
    expect(faultPlace({ row: 0, input: 'kind' })).toBe('row 1, kind');
    expect(faultPlace({ row: 2, input: null })).toBe('row 3');
  });
});
