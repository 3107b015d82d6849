import { describe, expect, it } from 'vitest';
import { count, percent, plural, table, utc } from './text-table.ts';

describe('plain aligned text', () => {
  it('right-aligns numbers and left-aligns text, the last text column unpadded', () => {
    expect(
      table(
        [{ heading: 'server' }, { heading: 'requests', numeric: true }, { heading: 'paths' }],
        [
          ['release-desk', '12,000', 'POST /mcp, GET /sse'],
          ['a', '7', ''],
        ],
      ),
    ).toEqual([
      '  server        requests  paths',
      '  release-desk    12,000  POST /mcp, GET /sse',
      '  a                    7',
    ]);
  });

  it('counts a wide glyph as two columns and a combining mark as none', () => {
    const lines = table(
      [{ heading: 'client' }, { heading: 'n', numeric: true }],
      [
        ['代理', '1'],
        ['e\u0301te\u0301', '2'],
        ['🚀', '3'],
      ],
    );
    // "代理" takes four columns, "été" (decomposed) three, the rocket two: every count ends in column 10.
    expect(lines).toEqual(['  client  n', '  代理    1', '  e\u0301te\u0301     2', '  🚀      3']);
  });

  it('says counts, shares, plurals and times as a reader expects them', () => {
    expect(count(12000)).toBe('12,000');
    expect(percent(0.325)).toBe('32.5%');
    expect(percent(null)).toBe('-');
    expect(percent(Number.NaN)).toBe('-');
    expect(plural(1, 'request')).toBe('1 request');
    expect(plural(2, 'request')).toBe('2 requests');
    expect(plural(0, 'storm')).toBe('0 storms');
    expect(utc(Date.parse('2026-12-02T02:42:42.366Z'))).toBe('2026-12-02 02:42:42');
  });
});
