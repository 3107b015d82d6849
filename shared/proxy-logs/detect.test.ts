import { describe, expect, it } from 'vitest';
import { detectFormat } from './detect.ts';

const COMBINED =
  '127.0.0.1 - - [02/Dec/2026:02:42:42 +0000] "POST /mcp HTTP/1.1" 200 343 "-" "ops-console/4.2 mcp-python/2.3.0"';
const NGINX_JSON =
  '{"time_iso8601":"2026-12-02T02:42:42+00:00","msec":"1796179362.366","request_method":"POST","request_uri":"/mcp","status":200}';
const NATIVE =
  '{"id":"c7-000123","ts":"2026-11-02T10:00:01.234Z","source":"client","client":"agent-7","server":"release-notes"}';
const ENVOY =
  '[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" ' +
  '"cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"';
const ENVOY_JSON =
  '{"start_time":"2016-04-15T20:17:00.310Z","method":"POST","path":"/api/v1/locations","response_code":204}';

describe('detectFormat', () => {
  it.each([
    ['native', NATIVE],
    ['nginx-json', NGINX_JSON],
    ['nginx-combined', COMBINED],
    ['envoy', ENVOY],
    ['envoy-json', ENVOY_JSON],
  ])('knows %s', (format, line) => {
    expect(detectFormat([line, line, line])).toBe(format);
  });

  it('skips blank lines, and lets most lines win over a stray one', () => {
    expect(detectFormat(['', COMBINED, '   ', 'garbage', COMBINED])).toBe('nginx-combined');
    expect(detectFormat([NATIVE, COMBINED, COMBINED])).toBe('nginx-combined');
  });

  it("counts a scanner's line as a line of its log", () => {
    const scanner = '203.0.113.9 - - [02/Dec/2026:02:42:43 +0000] "\\x16\\x03\\x01\\x00\\xF7" 400 157 "-" "-"';
    expect(detectFormat([scanner])).toBe('nginx-combined');
  });

  it('answers null when no line is one of the formats', () => {
    expect(detectFormat([])).toBeNull();
    expect(detectFormat(['', '  '])).toBeNull();
    expect(detectFormat(['hello', '{"status":200}', '[1,2]', '{"ts":1}', '{'])).toBeNull();
  });
});
