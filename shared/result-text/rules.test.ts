import { describe, expect, it } from 'vitest';
import { causeOf, delayOf, errorPrefix, jsonErrorObject, rateLimitSentence } from './rules.ts';

/** Prose that mentions an error, a failure or a limit without stating one: no rule may fire on it. */
const PROSE = [
  'No errors found.',
  'Error handling improved in 2.0: retries are bounded.',
  'errors: 0, warnings: 2',
  'Fixed an error: the parser no longer drops the last line.',
  'The build failed twice last week; both runs were fixed.',
  'Invalidation of the cache completed for 12 keys.',
  'Invalid values are ignored by default, as the docs describe in section 3 of the configuration guide.',
  'This endpoint is rate limited to 10 requests per second.',
  'The API has a rate limit of 100 requests per minute.',
  'If the rate limit is exceeded, retry after 30 s.',
  'Rate limits: 100/min for free plans, 1000/min for paid plans.',
  'Quota usage: 12 of 100 requests today.',
  'Release 1.1.0: streaming responses, session support.',
  '{"status":"ok","items":[]}',
  '{"error":null,"result":"done"}',
  '{"errors":[],"count":3}',
  '{"error":"","value":1}',
  '{"success":true}',
  'summary: 2.0.0 drops the legacy SSE transport.',
  'Failed: 0, passed: 12',
  'Failed: 3, passed: 9',
  'Error: none',
  '{"id":"build-12","status":"failed","step":"test"}',
];

describe('error_prefix', () => {
  it.each([
    ['Error: no record found', 'Error: no record found'],
    ['ERROR: upstream closed', 'ERROR: upstream closed'],
    ['Error: 404 Not Found', 'Error: 404 Not Found'],
    ['  Failed: date is not a valid date\nstack...', 'Failed: date is not a valid date'],
    ['Failure: could not write', 'Failure: could not write'],
    ['Invalid symbol', 'Invalid symbol'],
    ['Invalid arguments: limit must be integer', 'Invalid arguments: limit must be integer'],
  ])('fires on %j with the opening line as its span', (text, span) => {
    expect(errorPrefix(text)).toEqual({ rule: 'error_prefix', span });
  });

  it.each(PROSE)('is silent on prose: %j', (text) => expect(errorPrefix(text)).toBeNull());
});

describe('json_error_object', () => {
  it.each([
    '{"status":"error","message":"count must be a number"}',
    '{"status":"ERROR"}',
    ' {"error":"invalid_type","field":"limit"} ',
    '{"error":{"code":42,"message":"boom"}}',
    '{"success":false,"reason":"no data"}',
    '{"ok":false}',
  ])('fires on %j', (text) => expect(jsonErrorObject(text)?.rule).toBe('json_error_object'));

  it.each([...PROSE, '{"status":"error"', 'Here is JSON: {"status":"error"}', '[{"error":"x"}]'])(
    'is silent on %j',
    (text) => expect(jsonErrorObject(text)).toBeNull(),
  );
});

describe('rate_limit_sentence', () => {
  it.each([
    'Rate limit exceeded, retry after 30 s',
    'rate limited, retry after 12',
    'Rate limited. Please slow down.',
    'You have been rate limited.',
    'Error: rate limit reached for this key',
    'Too many requests, try again in 2 minutes',
    'Quota exceeded for today.',
  ])('fires on %j', (text) => expect(rateLimitSentence(text)?.rule).toBe('rate_limit_sentence'));

  it.each(PROSE)('is silent on prose: %j', (text) => expect(rateLimitSentence(text)).toBeNull());
});

describe('the delay a rate-limit text asks for', () => {
  it.each([
    ['rate limit exceeded, retry after 30 s', 30_000],
    ['rate limited, retry after 12', 12_000],
    ['Too many requests, try again in 2 minutes', 120_000],
    ['Rate limited. Retry-After: 5', 5_000],
    ['rate limited, retry in 250 ms', 250],
    ['{"error":"rate_limit_exceeded","retry_after":7}', 7_000],
  ])('%j waits %d ms', (text, ms) => expect(delayOf(text)?.ms).toBe(ms));

  it('names none in a text without a delay', () => expect(delayOf('Rate limit exceeded.')).toBeNull());
});

describe('the cause and target a failure text names', () => {
  it.each([
    ['Unknown tool: nonexistent_tool_0', 'unknown_tool', 'nonexistent_tool_0'],
    ['MCP error -32602: Tool nonexistent_tool_3 not found', 'unknown_tool', 'nonexistent_tool_3'],
    ["Invalid arguments: 'limit' must be integer", 'invalid_type', 'limit'],
    [
      "Input validation error: 7 is not of type 'string' for parameter 'walletAddress'",
      'invalid_type',
      'walletAddress',
    ],
    ['{"error":"invalid_type","field":"limit"}', 'invalid_type', 'limit'],
    ['{"status":"error","message":"\'count\' must be a number"}', 'invalid_type', 'count'],
    ['Error: limit must be a positive integer', 'invalid_value', 'limit'],
    ["Failed: date '2026-13-40' is not a valid date", 'invalid_value', 'date'],
    ['Authentication required: missing API key', 'authentication', 'API key'],
    ['rate limited, retry after 30', 'rate_limit', null],
  ])('%j: %s, target %j', (text, rule, target) => {
    const hit = causeOf(text);
    expect(hit?.rule).toBe(rule);
    expect(hit?.target?.span ?? null).toBe(target);
  });

  it('names a cause without a target where the text names none ("Invalid symbol")', () => {
    expect(causeOf('Invalid symbol')).toEqual({ rule: 'invalid_value', span: 'Invalid symbol', target: null });
  });

  it('names no cause for a lookup that found nothing', () => {
    expect(causeOf("Error: no record for id 'test-000'")).toBeNull();
    expect(causeOf("Error: no record found for symbol 'TEST'")).toBeNull();
  });
});
