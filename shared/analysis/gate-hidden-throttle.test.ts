import { describe, expect, it } from 'vitest';
import { classify } from '../classify/index.ts';
import { validateEvent } from '../event.ts';
import { requestIdentity } from '../identity.ts';
import { T0 } from './fixtures.ts';
import { toAnalysisEvent } from './from-event.ts';
import { replayGate } from './gate.ts';
import type { AnalysisEvent } from './types.ts';

/**
 * A hidden throttle in the gate (DOMAIN.md sections 6 and 8), built by hand: one client calling one server's tool
 * at HTTP 200, where the first answer is a success whose text may say it is rate limited. Frames are read, classified
 * and identified as the store does.
 */
let n = 0;
function call(seconds: number, text: string, tool = 'quote'): AnalysisEvent {
  n++;
  const read = validateEvent({
    id: `h-${n}`,
    ts: T0 + seconds * 1000,
    source: 'client',
    client: 'agent',
    server: 'quotes',
    http: { method: 'POST', path: '/mcp', status: 200 },
    request: { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: tool, arguments: { symbol: `S${n}` } } },
    response: { jsonrpc: '2.0', id: n, result: { content: [{ type: 'text', text }] } },
  });
  if (!read.ok) throw new Error(read.error.message);
  const e = read.event;
  const policy = { discovery: null, overrides: [] };
  const identity = requestIdentity(e.server, e.request, e.protocol);
  return toAnalysisEvent(e, classify(e, policy), { id: e.id ?? '', seq: n, identity, counted: true });
}

/** The first answer says `first`; then calls (other tools, other arguments) 5, 10, 29 and 31 s after it. */
function traffic(first: string): AnalysisEvent[] {
  return [
    call(0, first),
    call(5, 'AAPL 187.2'),
    call(10, 'MSFT 402.1', 'history'),
    call(29, 'GOOG 141.0'),
    call(31, 'AMZN 178.3'),
  ];
}

function judged(events: readonly AnalysisEvent[]) {
  const verdicts = replayGate(events);
  return events.map((e) => verdicts.get(e.id));
}

const avoidable = (events: readonly AnalysisEvent[]) => judged(events).filter((v) => v?.avoidable).length;

describe('a hidden throttle in the gate', () => {
  it('makes the next requests before its delay elapsed avoidable, marked as read from text', () => {
    const events = traffic('Rate limit exceeded, retry after 30 s');
    expect(events.map((e) => e.bucket)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(events[0]?.waitUntil).toBe(T0 + 30_000);
    const verdicts = judged(events);
    expect(verdicts.map((v) => v?.avoidable)).toEqual([false, true, true, true, false]);
    expect(verdicts[1]).toMatchObject({ reason: 'before_retry_after', blockedBy: null, readFromText: true });
    expect(avoidable(events)).toBe(3);
  });

  it('changes the avoidable count only then: the same calls after an ordinary success, prose or an undelayed limit', () => {
    expect(avoidable(traffic('AAPL 187.2'))).toBe(0);
    // Prose about a limit states no throttle.
    expect(avoidable(traffic('The API has a rate limit of 100 requests per minute.'))).toBe(0);
    // A throttle that names no delay asks for no wait (as a 429 without Retry-After).
    expect(avoidable(traffic('You have been rate limited.'))).toBe(0);
    // Another delay, another window: 10 s covers the calls at 5 s only (the one at 10 s is when it elapsed).
    expect(judged(traffic('rate limited, retry after 10')).map((v) => v?.avoidable)).toEqual([
      false,
      true,
      false,
      false,
      false,
    ]);
  });

  it('is not marked when a typed throttle named the wait', () => {
    n++;
    const read = validateEvent({
      id: `h-${n}`,
      ts: T0,
      source: 'client',
      client: 'agent',
      server: 'quotes',
      http: { method: 'POST', path: '/mcp', status: 429, retryAfter: 30 },
      request: { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'quote', arguments: {} } },
      response: null,
    });
    if (!read.ok) throw new Error(read.error.message);
    const e = read.event;
    const throttled = toAnalysisEvent(e, classify(e, { discovery: null, overrides: [] }), {
      id: e.id ?? '',
      seq: n,
      identity: null,
      counted: true,
    });
    const [, next] = judged([throttled, call(5, 'AAPL 187.2')]);
    expect(next).toMatchObject({ avoidable: true, reason: 'before_retry_after' });
    expect(next).not.toHaveProperty('readFromText');
  });
});
