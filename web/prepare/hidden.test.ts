import { describe, expect, it } from 'vitest';
import { hiddenLine, textRuleLabel } from './hidden.ts';

describe('hidden failures in words', () => {
  it('counts them, and the rate limits among them', () => {
    expect(hiddenLine({ failures: 0, throttles: 0 })).toBe('no hidden failure');
    expect(hiddenLine({ failures: 1, throttles: 0 })).toBe('1 hidden failure');
    expect(hiddenLine({ failures: 3, throttles: 1 })).toBe('3 hidden failures, 1 saying rate limited');
  });

  it('names each lexical rule for what it found, and an unknown one as it is', () => {
    expect(textRuleLabel('json_error_object')).toBe('a JSON error object');
    expect(textRuleLabel('some_new_rule')).toBe('some_new_rule');
  });
});
