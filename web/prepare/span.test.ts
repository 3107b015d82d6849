import { describe, expect, it } from 'vitest';
import { readSpan, spanText, spanWindow, storedText, widenSpan } from './span.ts';

const at = (iso: string) => Date.parse(iso);

describe('where events are', () => {
  it('reads the API span, and none from nulls or text that is no time', () => {
    expect(readSpan({ first: '2026-11-28T02:42:42.361Z', last: '2026-11-28T02:47:10.002Z' })).toEqual({
      first: at('2026-11-28T02:42:42.361Z'),
      last: at('2026-11-28T02:47:10.002Z'),
    });
    expect(readSpan({ first: null, last: null })).toBeNull();
    expect(readSpan(null)).toBeNull();
    expect(readSpan(undefined)).toBeNull();
    expect(readSpan({ first: 'yesterday', last: '2026-11-28T02:47:10Z' })).toBeNull();
  });

  it('widens over batches in any order, an empty batch changing nothing', () => {
    const a = { first: 100, last: 200 };
    const b = { first: 50, last: 150 };
    expect(widenSpan(a, b)).toEqual({ first: 50, last: 200 });
    expect(widenSpan(b, a)).toEqual({ first: 50, last: 200 });
    expect(widenSpan(null, a)).toEqual(a);
    expect(widenSpan(a, null)).toEqual(a);
    expect(widenSpan(null, null)).toBeNull();
  });

  it('opens whole minutes around the span, the last event inside, however close to a minute it falls', () => {
    const span = { first: at('2026-11-28T02:42:42.361Z'), last: at('2026-11-28T02:47:10.002Z') };
    expect(spanWindow(span)).toEqual({ from: at('2026-11-28T02:42:00Z'), to: at('2026-11-28T02:48:00Z') });
    const onTheMinute = { first: at('2026-11-28T02:00:00Z'), last: at('2026-11-28T03:00:00Z') };
    expect(spanWindow(onTheMinute)).toEqual({ from: at('2026-11-28T02:00:00Z'), to: at('2026-11-28T03:01:00Z') });
    const one = at('2026-11-28T02:42:42.361Z');
    expect(spanWindow({ first: one, last: one })).toEqual({
      from: at('2026-11-28T02:42:00Z'),
      to: at('2026-11-28T02:43:00Z'),
    });
  });

  it('says the span with its end date only when it is another day', () => {
    const first = at('2026-11-28T02:42:42.361Z');
    expect(spanText({ first, last: at('2026-11-28T02:47:10Z') })).toBe('28 Nov 02:42:42 – 02:47:10 UTC');
    expect(spanText({ first, last: at('2026-12-01T00:00:01Z') })).toBe('28 Nov 02:42:42 – 1 Dec 00:00:01 UTC');
    expect(spanText({ first, last: first })).toBe('28 Nov 02:42:42 UTC');
  });

  it('says where the stored events are and how old the newest is, in words', () => {
    const span = { first: at('2026-11-28T02:42:42Z'), last: at('2026-11-28T02:47:10Z') };
    const now = at('2026-12-02T09:00:00Z');
    expect(storedText(span, now)).toBe(
      'The stored events run from 28 Nov 02:42:42 to 02:47:10 UTC (the newest 4 days ago).',
    );
    expect(storedText({ first: span.last, last: span.last }, now)).toBe(
      'The stored events all happened at 28 Nov 02:47:10 UTC (4 days ago).',
    );
  });
});
