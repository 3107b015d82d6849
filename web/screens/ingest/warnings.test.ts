import { describe, expect, it } from 'vitest';
import { groupWarnings, type WarningRow } from './warnings.ts';

const row = (line: number, message: string, field = 'server', file = 'access.log'): WarningRow => ({
  file,
  line,
  field,
  message,
});

describe('groupWarnings', () => {
  it('folds identical warnings into one group, the largest first, keeping the first line numbers', () => {
    const rows = [
      row(1, 'status 0'),
      ...Array.from({ length: 8 }, (_, i) => row(i + 2, 'named after its host')),
      row(10, 'status 0'),
      row(11, 'cut to 1024', 'proxy.userAgent'),
    ];
    const groups = groupWarnings(rows, 3);
    expect(groups.map((g) => [g.message, g.count, g.lines])).toEqual([
      ['named after its host', 8, [2, 3, 4]],
      ['status 0', 2, [1, 10]],
      ['cut to 1024', 1, [11]],
    ]);
  });

  it('keeps apart the same message of another file or field', () => {
    const groups = groupWarnings([row(1, 'm'), row(1, 'm', 'server', 'other.log'), row(2, 'm', 'http.status')]);
    expect(groups).toHaveLength(3);
    expect(new Set(groups.map((g) => g.key)).size).toBe(3);
  });
});
