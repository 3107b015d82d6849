import { describe, expect, it } from 'vitest';
import {
  askedInRoundsText,
  contextAskedText,
  eraText,
  onlyLegacy,
  roundHeadline,
  roundRoles,
  roundsPerCallText,
  serverEraHeadline,
  speaksText,
} from './eras.ts';

describe('eras in words', () => {
  it('name the era of a request, and say when the request does not tell', () => {
    expect(eraText('2026', '2026-07-28')).toBe('2026-07-28 (stateless)');
    expect(eraText('2025', '2025-11-25')).toBe('2025 (2025-11-25)');
    expect(eraText('2025', null)).toBe('2025 (sessions)');
    expect(eraText(null, null)).toBe('not told by the request');
  });

  it('say which eras a client speaks, and single out 2025 alone', () => {
    expect(speaksText(['2025'])).toBe('2025 only');
    expect(speaksText(['2026'])).toBe('2026-07-28 only');
    expect(speaksText(['2025', '2026'])).toBe('2025 and 2026-07-28');
    expect(speaksText([])).toBe('no era told');
    expect(onlyLegacy(['2025'])).toBe(true);
    expect(onlyLegacy(['2025', '2026'])).toBe(false);
    expect(serverEraHeadline(['2025'])).toMatch(/^Answers only 2025-era requests/);
    expect(serverEraHeadline([])).toBe('No request in this range said its era.');
  });

  it('say which round of its call an event is, from when the call was sent', () => {
    const rounds = [{ ts: '2026-12-06T01:49:40.120Z' }, { ts: '2026-12-06T01:49:40.180Z' }];
    expect(roundHeadline({ rounds, round: 2, firstInLog: true })).toBe(
      'Round 2 of 2 of the call sent at 01:49:40 UTC.',
    );
    expect(roundHeadline({ rounds: rounds.slice(0, 1), round: 1, firstInLog: false })).toMatch(
      /^Round 1 of 1 in the log: the send that asked for input is not in it/,
    );
    expect(roundRoles({ bucket: 'pending', continuation: true })).toHaveLength(2);
    expect(roundRoles({ bucket: 'ok', continuation: false })).toEqual([]);
    expect(roundsPerCallText(2)).toBe('2.0');
    expect(roundsPerCallText(null)).toBe('–');
  });

  it('name the context a sampling request made inside an answer asked to see', () => {
    expect(contextAskedText('thisServer')).toBe("asking to see this server's context");
    expect(contextAskedText('none')).toBe('asking for no context');
    expect(contextAskedText(undefined)).toBeNull();
  });
});

describe('askedInRoundsText', () => {
  it('names what a server asked in rounds, most first, and how much of it again', () => {
    const byMethod = { 'sampling/createMessage': 1, 'elicitation/create': 4 };
    expect(askedInRoundsText({ requests: 5, again: 2, byMethod })).toBe(
      'elicitation/create ×4, sampling/createMessage ×1; 2 asked again',
    );
    expect(askedInRoundsText({ requests: 1, again: 0, byMethod: { 'roots/list': 1 } })).toBe('roots/list ×1');
    expect(askedInRoundsText({ requests: 0, again: 0, byMethod: {} })).toBe('nothing');
  });
});
