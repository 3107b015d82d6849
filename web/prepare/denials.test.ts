import { describe, expect, it } from 'vitest';
import { denialsHeadline } from './denials.ts';

describe('the denials headline', () => {
  it('says what a denial that did not hold means, not where the idea came from', () => {
    const text = denialsHeadline(2);
    expect(text).toBe(
      'refused requests were answered differently while their refusal still stood: the server decided them afresh instead of keeping its answer.',
    );
    expect(text).not.toContain('decision store');
  });

  it('agrees with one, and says nothing of a cause when there is none', () => {
    expect(denialsHeadline(1)).toBe(
      'refused request was answered differently while its refusal still stood: the server decided it afresh instead of keeping its answer.',
    );
    expect(denialsHeadline(0)).toBe('refused requests were answered differently while their refusal still stood.');
  });
});
