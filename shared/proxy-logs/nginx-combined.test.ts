import { describe, expect, it } from 'vitest';
import { validateEvent } from '../event.ts';
import { decodeEscapes, nginxCombinedLineToEvent, parseTimeLocal } from './nginx-combined.ts';

const SERVER = { server: 'release-desk' };
/** A line of tests/fixtures/corpus/mcp-python/nginx-access.combined.log, as nginx 1.22 wrote it. */
const RECORDED =
  '127.0.0.1 - - [02/Dec/2026:02:42:43 +0000] "POST /mcp/sse HTTP/1.1" 404 9 "-" "fedscan/0.9 (+path-probe)"';
const T = Date.parse('2026-12-02T02:42:43Z');

function read(text: string, options: object = SERVER) {
  const result = nginxCombinedLineToEvent(text, options);
  if (!result.ok) throw new Error(`refused: ${result.error.code} ${result.error.message}`);
  return result;
}

/** Kept, and an event once validated; the warnings of both steps. */
function kept(text: string) {
  const result = read(text);
  const parsed = validateEvent(result.value);
  if (!parsed.ok) throw new Error(`not an event: ${parsed.error.message}`);
  return { value: result.value, event: parsed.event, warnings: [...result.warnings, ...parsed.warnings] };
}

/** A combined line with this request line and user agent, both as nginx would escape them. */
const combined = (request: string, userAgent = 'probe/1.0', status = '400') =>
  `203.0.113.9 - - [02/Dec/2026:02:42:43 +0000] "${request}" ${status} 157 "-" "${userAgent}"`;

describe('nginxCombinedLineToEvent', () => {
  it('reads a recorded line', () => {
    const { value, warnings } = read(RECORDED);
    expect(warnings).toEqual([]);
    expect(value).toEqual({
      ts: T,
      source: 'proxy',
      server: 'release-desk',
      client: 'fedscan/0.9 (+path-probe)',
      http: { method: 'POST', path: '/mcp/sse', status: 404 },
      proxy: { remoteAddr: '127.0.0.1', userAgent: 'fedscan/0.9 (+path-probe)', protocol: 'HTTP/1.1' },
    });
  });

  it('reads the main format: combined plus "$http_x_forwarded_for"', () => {
    const { value, warnings } = read(
      '10.0.0.2 - alice [02/Dec/2026:02:42:43 +0000] "GET /mcp HTTP/1.1" 200 5 "https://ref.example/" "curl/8.5.0" "198.51.100.7, 10.0.0.1"',
    );
    expect(warnings).toEqual([]);
    expect(value.proxy).toEqual({
      remoteAddr: '10.0.0.2',
      userAgent: 'curl/8.5.0',
      forwardedFor: '198.51.100.7, 10.0.0.1',
      protocol: 'HTTP/1.1',
    });
    expect(read('10.0.0.2 - - [02/Dec/2026:02:42:43 +0000] "GET / HTTP/1.1" 200 5 "-" "-" "-"').value.proxy).toEqual({
      remoteAddr: '10.0.0.2',
      protocol: 'HTTP/1.1',
    });
  });

  it('reads a remote user with spaces, and the common format (no referer, no user agent)', () => {
    expect(
      read('10.0.0.2 - John Smith [02/Dec/2026:02:42:43 +0000] "GET /mcp HTTP/1.1" 200 5 "-" "x"').value.http,
    ).toEqual({
      method: 'GET',
      path: '/mcp',
      status: 200,
    });
    const common = read('10.0.0.2 - - [02/Dec/2026:02:42:43 +0000] "GET /mcp HTTP/1.1" 200 5');
    expect(common.warnings).toEqual([]);
    expect(common.value.http?.status).toBe(200);
  });

  it('keeps a line with fields after the known ones, with a warning', () => {
    const { value, warnings } = read(`${RECORDED} rt=0.012 uct="0.000"`);
    expect(value.http?.status).toBe(404);
    expect(warnings).toEqual([expect.objectContaining({ field: 'line' })]);
  });

  it('reads $time_local in any zone', () => {
    expect(parseTimeLocal('02/Dec/2026:03:42:43 +0100')).toBe(T);
    expect(parseTimeLocal('01/Dec/2026:21:12:43 -0530')).toBe(T);
    expect(parseTimeLocal('02/Dek/2026:02:42:43 +0000')).toBeUndefined();
    expect(parseTimeLocal('2026-12-02T02:42:43Z')).toBeUndefined();
  });

  it('refuses a line with no readable time, and what is not a combined line', () => {
    expect(nginxCombinedLineToEvent(RECORDED.replace('02/Dec/2026', '2026-12-02'), SERVER)).toMatchObject({
      ok: false,
      error: { code: 'no_timestamp' },
    });
    for (const text of [
      '{"msec":"1796179363.878","status":200}',
      '[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"',
      '2026/12/02 02:42:43 [error] 12#12: *1 connect() failed (111: Connection refused) while connecting to upstream',
      '127.0.0.1 - - [02/Dec/2026:02:42:43 +0000] POST /mcp 200',
    ]) {
      expect(nginxCombinedLineToEvent(text, SERVER)).toMatchObject({ ok: false, error: { code: 'not_the_format' } });
    }
    expect(nginxCombinedLineToEvent('', SERVER)).toMatchObject({ ok: false, error: { code: 'empty_line' } });
  });

  it('names the server "unknown", with a warning, when no option names one: combined logs no host', () => {
    const { value, warnings } = read(RECORDED, {});
    expect(value.server).toBe('unknown');
    expect(warnings).toEqual([expect.objectContaining({ field: 'server' })]);
    expect(
      read(RECORDED, { serverOf: (_host: unknown, path?: string) => (path === '/mcp/sse' ? 'desk' : undefined) }).value
        .server,
    ).toBe('desk');
  });

  describe('keeps hostile lines, with warnings', () => {
    it('escaped quotes in the request line and the user agent (\\x22, as nginx writes them)', () => {
      const { value, event, warnings } = kept(
        combined('GET /search?q=\\x22mcp\\x22 HTTP/1.1', 'say \\x22hi\\x22 \\x5Co/', '200'),
      );
      expect(event.http).toEqual({ method: 'GET', path: '/search?q="mcp"', status: 200 });
      expect(value.proxy?.userAgent).toBe('say "hi" \\o/');
      expect(warnings).toEqual([]);
      // Apache's \" as well: the quote does not end the field.
      expect(read(combined('GET / HTTP/1.1', 'a \\"b\\" c')).value.proxy?.userAgent).toBe('a "b" c');
    });

    it('a "-" request line (nothing was sent before the connection closed)', () => {
      const { event, value, warnings } = kept('203.0.113.9 - - [02/Dec/2026:02:42:43 +0000] "-" 400 0 "-" "-"');
      expect(event.http).toEqual({ status: 400 });
      expect(value.proxy?.requestLine).toBeUndefined();
      expect(warnings).toEqual([{ field: 'http', message: expect.stringContaining('no request line') }]);
      expect(kept('203.0.113.9 - - [02/Dec/2026:02:42:43 +0000] "" 400 0 "-" "-"').event.http).toEqual({ status: 400 });
    });

    it("a scanner's binary garbage (a TLS ClientHello sent to the plain-HTTP port)", () => {
      const garbage = '\\x16\\x03\\x01\\x00\\xF7\\x01\\x00\\x00\\xF3\\x03\\x03\\x8A\\x9F';
      const { event, value, warnings } = kept(combined(garbage, '-'));
      expect(event.http).toEqual({ status: 400 });
      expect(value.proxy?.requestLine).toBe(garbage);
      expect(value.proxy?.userAgent).toBeUndefined();
      expect(warnings).toEqual([{ field: 'http', message: expect.stringContaining('not a request line') }]);
    });

    it('request lines that are not METHOD target HTTP/x.y', () => {
      for (const request of [
        'GET',
        'GET /a b HTTP/1.1',
        'G\\x00T / HTTP/1.1',
        'GET / SPDY/3',
        '\\x00\\x00 / HTTP/1.1',
      ]) {
        const { event, warnings } = kept(combined(request));
        expect(event.http, request).toEqual({ status: 400 });
        expect(warnings.map((w) => w.field)).toEqual(['http']);
      }
      // HTTP/0.9 has no version, and is a request line.
      expect(kept(combined('GET /mcp')).event.http).toEqual({ method: 'GET', path: '/mcp', status: 400 });
    });

    it('unicode in the user agent, escaped byte by byte; bytes that are not UTF-8 become U+FFFD', () => {
      expect(
        kept(combined('GET / HTTP/1.1', 'agent/1.0 (\\xC3\\xBC\\xE2\\x82\\xAC \\xF0\\x9F\\x9A\\x80)')).value.proxy
          ?.userAgent,
      ).toBe('agent/1.0 (ü€ 🚀)');
      expect(kept(combined('GET / HTTP/1.1', 'bad \\xFF\\xC3 end')).value.proxy?.userAgent).toBe(
        'bad \ufffd\ufffd end',
      );
      expect(kept(combined('GET /caf\\xC3\\xA9 HTTP/1.1')).event.http?.path).toBe('/café');
    });

    it('a line of 10 KB: the path dropped by validateEvent, the user agent cut', () => {
      const text = combined(`GET /${'a'.repeat(6000)} HTTP/1.1`, 'u'.repeat(5000), '414');
      expect(text.length).toBeGreaterThan(10_000);
      const { event, value, warnings } = kept(text);
      expect(event.http).toEqual({ method: 'GET', status: 414 });
      expect(value.proxy?.userAgent).toHaveLength(1024);
      // The line's client is the start of its user agent: a name is at most 200 characters.
      expect(value.client).toBe(value.proxy?.userAgent?.slice(0, 200));
      expect(event.client).toHaveLength(200);
      expect(warnings.map((w) => w.field)).toEqual(['proxy.userAgent', 'http.path']);
    });

    it('a line cut inside a quoted field', () => {
      const { event, warnings } = kept('203.0.113.9 - - [02/Dec/2026:02:42:43 +0000] "POST /mc');
      expect(event.http).toBeUndefined();
      expect(warnings.map((w) => w.field)).toEqual(['http', 'http.status', 'line']);
    });

    it('a status that is not three digits', () => {
      const { event, warnings } = kept(combined('GET / HTTP/1.1', 'x', 'abc'));
      expect(event.http).toEqual({ method: 'GET', path: '/' });
      expect(warnings.map((w) => w.field)).toEqual(['http.status']);
    });
  });
});

describe('decodeEscapes', () => {
  it('turns runs of \\xHH into the UTF-8 text they encode, and leaves the rest', () => {
    expect(decodeEscapes('plain')).toBe('plain');
    expect(decodeEscapes('a\\x22b\\x5Cc')).toBe('a"b\\c');
    expect(decodeEscapes('\\xE2\\x82\\xAC!')).toBe('€!');
    expect(decodeEscapes('\\x4')).toBe('x4');
    expect(decodeEscapes('end\\')).toBe('end\\');
  });
});
