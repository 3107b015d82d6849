import { describe, expect, it } from 'vitest';
import { dominates, packViews, parseProfile } from './index.ts';
import { countViews, incomparablePairs, rankServers, shareDominates } from './summary.ts';

const p = (text: string) => parseProfile(text) ?? -1;

describe('dominance between profiles', () => {
  it('holds when every bit the other earns is earned too, and is a partial order', () => {
    expect(dominates(p('110000'), p('100000'))).toBe(true);
    expect(dominates(p('100000'), p('110000'))).toBe(false);
    expect(dominates(p('000000'), p('000000'))).toBe(true);
    // Seed 004: timing without a corrected request, a target without a cause: neither dominates.
    expect(dominates(p('100001'), p('100100'))).toBe(false);
    expect(dominates(p('100100'), p('100001'))).toBe(false);
    expect(incomparablePairs([p('100001'), p('100100'), p('111101')])).toBe(1);
  });
});

describe('dominance between servers', () => {
  const server = (name: string, profiles: string[]) => ({
    server: name,
    ...countViews(
      profiles.map((text) => ({
        packed: packViews({ control: p(text), transport: p(text), content: p(text) }),
        failures: 1,
      })),
    ),
  });

  it('compares share vectors: more of every bit dominates, a trade is incomparable', () => {
    const a = server('a', ['110000', '110000']);
    const b = server('b', ['110000', '100000']);
    const c = server('c', ['100001', '100001']);
    expect(shareDominates(a.control, b.control)).toBe(true);
    expect(shareDominates(b.control, a.control)).toBe(false);
    expect(shareDominates(a.control, c.control)).toBe(false);
    expect(shareDominates(c.control, a.control)).toBe(false);
    const ranked = rankServers([b, c, a], 'control');
    expect(ranked.map((r) => [r.item.server, r.dominates, r.dominatedBy])).toEqual([
      ['a', ['b'], []],
      ['c', [], []],
      ['b', [], ['a']],
    ]);
  });

  it('leaves a server without failures out of every comparison', () => {
    const none = server('none', []);
    expect(shareDominates(none.control, server('a', ['100000']).control)).toBe(false);
    expect(none.control).toEqual({ failures: 0, D: 0, P: 0, C: 0, T: 0, E: 0, R: 0, profiles: {} });
  });
});
