import { describe, expect, it } from 'vitest';
import { instant } from './params.ts';

describe('instant', () => {
  it.each([
    ['1793613600000', '2026-11-02T10:00:00.000Z'],
    ['2026-11-02', '2026-11-02T00:00:00.000Z'],
    ['2026-11-02T10:00:00Z', '2026-11-02T10:00:00.000Z'],
    ['2026-11-02T10:00:00.5+02:00', '2026-11-02T08:00:00.500Z'],
    // No offset: UTC, whatever the server's time zone.
    ['2026-11-02T10:00', '2026-11-02T10:00:00.000Z'],
  ])('reads %s', (text, iso) => {
    expect(new Date(instant.parse(text)).toISOString()).toBe(iso);
  });

  it.each(['-5', '1 2', 'Tue, 01 Dec 2026 10:00:00 GMT', '2026-11-02 10:00', 'yesterday', '', '9'.repeat(20)])(
    'refuses %j, which Date.parse alone might read as some date',
    (text) => {
      expect(instant.safeParse(text).success).toBe(false);
    },
  );
});
