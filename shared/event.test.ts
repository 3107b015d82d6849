import { describe, expect, it } from 'vitest';
import { MAX_NESTING, parseEventLine, validateEvent } from './event.ts';
import { retryAfterMs, retryAfterSeconds } from './retry-after.ts';

const TS = '2026-12-02T02:42:42.361Z';
const base = { ts: TS, source: 'client', client: 'agent-7', server: 'release-desk' };

function read(extra: Record<string, unknown>) {
  const result = validateEvent({ ...base, ...extra });
  if (!result.ok) throw new Error(`rejected: ${result.error.message}`);
  return result;
}

describe('frames as real software writes them', () => {
  it.each([
    ['null (a notification answered 202)', null],
    ['absent', undefined],
    ['a JSON-RPC batch array', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
    ['a string (an HTML error page)', '<html><body>502 Bad Gateway</body></html>'],
    ['a number', 42],
    ['a boolean', false],
  ])('reads a request or response that is %s as no frame, and keeps the event', (_, frame) => {
    const { event } = read({ request: frame, response: frame, http: { method: 'POST', path: '/mcp', status: 202 } });
    expect(event.request).toBeUndefined();
    expect(event.response).toBeUndefined();
    expect(event.http?.status).toBe(202);
  });

  it('warns about a frame it cannot read, but not about null or absence', () => {
    expect(read({ request: null, response: null }).warnings).toEqual([]);
    expect(read({ response: [1, 2] }).warnings).toEqual([
      { field: 'response', message: 'not a JSON-RPC object: read as no frame' },
    ]);
  });

  it('keeps an object frame untouched', () => {
    const request = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x', arguments: {} } };
    expect(read({ request }).event.request).toEqual(request);
  });
});

describe('members with a shape we cannot use', () => {
  it('drops a latencyMs string, a status of 1200 and a non-boolean flag, and keeps the event', () => {
    const { event, warnings } = read({
      latencyMs: '12ms',
      http: { method: 'POST', path: '/mcp', status: 1200 },
      timeout: 'yes',
    });
    expect(event.latencyMs).toBeUndefined();
    expect(event.http).toEqual({ method: 'POST', path: '/mcp' });
    expect(event.timeout).toBeUndefined();
    expect(warnings.map((w) => w.field)).toEqual(['http.status', 'latencyMs', 'timeout']);
  });

  it('reads null as "not given" for every optional member, with no warning', () => {
    const { event, warnings } = read({ id: null, session: null, http: null, latencyMs: null, discoveryRead: null });
    expect(warnings).toEqual([]);
    expect(event).toEqual({
      ts: Date.parse(TS),
      source: 'client',
      client: 'agent-7',
      server: 'release-desk',
      protocol: 'mcp',
    });
  });

  it('reads an unknown protocol as mcp and says so', () => {
    const { event, warnings } = read({ protocol: 'grpc' });
    expect(event.protocol).toBe('mcp');
    expect(warnings).toEqual([{ field: 'protocol', message: 'must be "mcp" or "a2a"; read as "mcp"' }]);
  });

  it('keeps a numeric id as its text, so a re-sent line is still a duplicate', () => {
    expect(read({ id: 123 }).event.id).toBe('123');
  });
});

describe('lines that cannot be an event', () => {
  it.each([
    ['no ts', { ...base, ts: undefined }, 'missing_field', 'ts'],
    ['a ts without a zone', { ...base, ts: '2026-12-02T02:42:42' }, 'invalid_field', 'ts'],
    ['a ts before 1970', { ...base, ts: '1969-12-31T23:59:59Z' }, 'invalid_field', 'ts'],
    ['no server', { ...base, server: undefined }, 'missing_field', 'server'],
    ['an empty server', { ...base, server: '' }, 'invalid_field', 'server'],
    ['no source', { ...base, source: undefined }, 'missing_field', 'source'],
    ['a client record without client', { ...base, client: null }, 'missing_field', 'client'],
  ])('rejects %s with a code and the field', (_, value, code, field) => {
    const result = validateEvent(value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ code, field });
  });

  it('rejects text that is not JSON, and JSON that is not an object', () => {
    expect(parseEventLine('{"ts":')).toMatchObject({ ok: false, error: { code: 'invalid_json' } });
    expect(parseEventLine('[1]')).toMatchObject({ ok: false, error: { code: 'not_an_object' } });
  });

  it('lets a proxy line name no client', () => {
    expect(validateEvent({ ...base, source: 'proxy', client: undefined }).ok).toBe(true);
  });
});

describe('http.retryAfter', () => {
  it('takes seconds as a number, or the header text as delta-seconds', () => {
    expect(read({ http: { status: 429, retryAfter: 2 } }).event.http?.retryAfter).toBe(2);
    expect(read({ http: { status: 429, retryAfter: '2' } }).event.http?.retryAfter).toBe(2);
    expect(read({ http: { status: 429, retryAfter: ' 120 ' } }).event.http?.retryAfter).toBe(120);
  });

  it('reads an HTTP-date relative to the event ts, in all three forms of RFC 9110', () => {
    const whole = Date.parse('2026-12-02T02:42:42Z');
    const imf = new Date(whole + 30_000).toUTCString();
    expect(read({ ts: whole, http: { status: 503, retryAfter: imf } }).event.http?.retryAfter).toBe(30);
    // A date already past asks for no wait.
    expect(read({ ts: whole + 60_000, http: { status: 503, retryAfter: imf } }).event.http?.retryAfter).toBe(0);
    expect(retryAfterSeconds('Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 7))).toBe(30);
    expect(retryAfterSeconds('Sun Nov  6 08:49:37 1994', Date.UTC(1994, 10, 6, 8, 49, 37) + 5000)).toBe(0);
  });

  it('drops what is neither form, with a warning', () => {
    for (const text of ['soon', '2.5.1', '-3', '']) {
      const { event, warnings } = read({ http: { status: 429, retryAfter: text } });
      expect(event.http?.retryAfter).toBeUndefined();
      expect(warnings.map((w) => w.field)).toEqual(['http.retryAfter']);
    }
    expect(retryAfterMs('7', 0)).toBe(7000);
    expect(retryAfterMs('Feb', 0)).toBeNull();
  });
});

describe('one reading for both stores', () => {
  it('refuses a line nested deeper than MAX_NESTING, and reads one at the limit', () => {
    const nest = (levels: number) => {
      let value: unknown = 'x';
      for (let i = 0; i < levels; i++) value = { a: value };
      return value;
    };
    const deep = validateEvent({ ...base, request: nest(MAX_NESTING) });
    expect(deep).toMatchObject({ ok: false, error: { code: 'too_deep' } });
    // The event is level 1 and its request level 2: this request's innermost object is at level MAX_NESTING.
    expect(validateEvent({ ...base, request: nest(MAX_NESTING - 1) }).ok).toBe(true);
    // Thousands of levels cost no stack: the check stops at MAX_NESTING levels.
    const line = `${JSON.stringify(base).slice(0, -1)},"response":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    expect(parseEventLine(line)).toMatchObject({ ok: false, error: { code: 'too_deep' } });
  });

  it('stores names as well-formed text: a lone surrogate becomes U+FFFD', () => {
    expect(read({ server: 'a\uD800b' }).event.server).toBe('a\uFFFDb');
  });
});
