import { describe, expect, it } from 'vitest';
import { validateEvent } from '../event.ts';
import { type ProxyFormat, type ProxyLineOptions, proxyLineToEvent } from './index.ts';

/** The nginx lines are recorded ones (line 15 of each mcp-python log); the Envoy ones are envoy.test.ts's. */
const LINES: Record<ProxyFormat, string> = {
  'nginx-json':
    '{"time_iso8601":"2026-12-02T02:42:43+00:00","msec":"1796179363.882","remote_addr":"127.0.0.1","request_method":"GET","request_uri":"/sse","status":404,"request_time":0.001,"upstream_status":"404","upstream_response_time":"0.000","request_id":"5c99cff2417625894b5368c5ca64aece","http_mcp_session_id":"","sent_http_mcp_session_id":"","http_mcp_protocol_version":"","http_a2a_version":"","sent_http_content_type":"text/plain; charset=utf-8","sent_http_retry_after":"","http_traceparent":"","http_user_agent":"fedscan/0.9 (+path-probe)","request_length":165,"body_bytes_sent":9}',
  'nginx-combined':
    '127.0.0.1 - - [02/Dec/2026:02:42:43 +0000] "GET /sse HTTP/1.1" 404 9 "-" "fedscan/0.9 (+path-probe)"',
  envoy:
    '[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" ' +
    '"nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"',
  'envoy-json':
    '{"start_time":"2016-04-15T20:17:00.310Z","method":"POST","path":"/api/v1/locations","protocol":"HTTP/2","response_code":"204","duration":"226","authority":"locations"}',
};

const HTTP: Record<ProxyFormat, object> = {
  'nginx-json': { method: 'GET', path: '/sse', status: 404, requestId: '5c99cff2417625894b5368c5ca64aece' },
  'nginx-combined': { method: 'GET', path: '/sse', status: 404 },
  envoy: { method: 'POST', path: '/api/v1/locations', status: 204, requestId: 'cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2' },
  'envoy-json': { method: 'POST', path: '/api/v1/locations', status: 204 },
};

/** The nginx JSON line with these members changed. */
const nginxJson = (changes: Record<string, unknown>) =>
  JSON.stringify({ ...JSON.parse(LINES['nginx-json']), ...changes });

/** The value a line becomes; the test fails if the line is refused. */
function readValue(format: ProxyFormat, line: string, options: ProxyLineOptions = { server: 'release-desk' }) {
  const result = proxyLineToEvent(format, line, options);
  if (!result.ok) throw new Error(`refused: ${result.error.code} ${result.error.message}`);
  return result.value;
}

describe('proxyLineToEvent', () => {
  it.each(Object.entries(LINES) as [ProxyFormat, string][])('reads a %s line into an event', (format, line) => {
    const result = proxyLineToEvent(format, line, { server: 'release-desk' });
    expect(result).toMatchObject({ ok: true, warnings: [] });
    if (!result.ok) return;
    const parsed = validateEvent(result.value);
    expect(parsed).toMatchObject({
      ok: true,
      warnings: [],
      event: { source: 'proxy', server: 'release-desk', http: HTTP[format] },
    });
  });

  it.each(Object.keys(LINES) as ProxyFormat[])('refuses an empty line as %s', (format) => {
    expect(proxyLineToEvent(format, '')).toMatchObject({ ok: false, error: { code: 'empty_line' } });
    expect(proxyLineToEvent(format, ' \r\n')).toMatchObject({ ok: false, error: { code: 'empty_line' } });
  });

  it('refuses a line of another format as not_the_format', () => {
    expect(proxyLineToEvent('nginx-json', LINES['nginx-combined'])).toMatchObject({
      error: { code: 'not_the_format' },
    });
    expect(proxyLineToEvent('nginx-combined', LINES.envoy)).toMatchObject({ error: { code: 'not_the_format' } });
    expect(proxyLineToEvent('envoy', LINES['nginx-combined'])).toMatchObject({ error: { code: 'not_the_format' } });
    expect(proxyLineToEvent('envoy-json', LINES['nginx-combined'])).toMatchObject({
      error: { code: 'not_the_format' },
    });
  });

  it('refuses a format it has no reader for', () => {
    expect(proxyLineToEvent('apache' as ProxyFormat, LINES['nginx-combined'])).toMatchObject({
      ok: false,
      error: { code: 'not_the_format' },
    });
  });

  it('names the client from the client option, else the user agent, else the remote address; none when none is logged', () => {
    const desk = { server: 'release-desk', client: 'desk-host' };
    // The option first, even over a user agent and a remote address, and for a line that logs neither.
    expect(readValue('nginx-json', LINES['nginx-json'], desk).client).toBe('desk-host');
    expect(readValue('envoy-json', LINES['envoy-json'], desk).client).toBe('desk-host');
    // Then the user agent, over the remote address.
    expect(readValue('nginx-json', LINES['nginx-json']).client).toBe('fedscan/0.9 (+path-probe)');
    expect(readValue('nginx-combined', LINES['nginx-combined']).client).toBe('fedscan/0.9 (+path-probe)');
    expect(readValue('envoy', LINES.envoy).client).toBe('nsq2http');
    // Then the remote address.
    expect(readValue('nginx-json', nginxJson({ http_user_agent: '' })).client).toBe('127.0.0.1');
    expect(
      readValue('nginx-combined', LINES['nginx-combined'].replace('"fedscan/0.9 (+path-probe)"', '"-"')).client,
    ).toBe('127.0.0.1');
    // Neither: no client member at all (a proxy event needs none), and validateEvent reads none.
    const none = [
      readValue('envoy-json', LINES['envoy-json']),
      readValue('envoy', LINES.envoy.replace('"nsq2http"', '"-"')),
      readValue('nginx-json', nginxJson({ http_user_agent: '', remote_addr: '' })),
    ];
    for (const value of none) {
      expect(value).not.toHaveProperty('client');
      const parsed = validateEvent(value);
      expect(parsed).toMatchObject({ ok: true, warnings: [] });
      if (parsed.ok) expect(parsed.event).not.toHaveProperty('client');
    }
    // The client a line names is the validated event's.
    expect(validateEvent(readValue('nginx-json', LINES['nginx-json']))).toMatchObject({
      ok: true,
      warnings: [],
      event: { client: 'fedscan/0.9 (+path-probe)' },
    });
  });

  it("puts a line's request id and traceparent in http, where validateEvent reads them", () => {
    const traceparent = '00-530bd4991f469a45b3221bc03ba34cd1-b245e89d2e63a5fc-01';
    const value = readValue('nginx-json', nginxJson({ http_traceparent: traceparent }));
    expect(value.http).toMatchObject({ requestId: '5c99cff2417625894b5368c5ca64aece', traceparent });
    expect(value.proxy).not.toHaveProperty('requestId');
    expect(value.proxy).not.toHaveProperty('traceparent');
    const parsed = validateEvent(value);
    expect(parsed).toMatchObject({ ok: true, warnings: [] });
    if (!parsed.ok) return;
    expect(parsed.event.http).toEqual({
      method: 'GET',
      path: '/sse',
      status: 404,
      requestId: '5c99cff2417625894b5368c5ca64aece',
      traceparent,
    });
    // validateEvent takes at most 256 characters; a longer id (the reader keeps 1024) is dropped, with a warning.
    expect(validateEvent(readValue('nginx-json', nginxJson({ request_id: 'r'.repeat(256) })))).toMatchObject({
      ok: true,
      warnings: [],
      event: { http: { requestId: 'r'.repeat(256) } },
    });
    const long = validateEvent(readValue('nginx-json', nginxJson({ request_id: 'r'.repeat(257) })));
    expect(long).toMatchObject({ ok: true, warnings: [{ field: 'http.requestId' }] });
    if (long.ok) expect(long.event.http).not.toHaveProperty('requestId');
  });

  it('names the server from the host the line logged when no option names it, and says so', () => {
    const json = proxyLineToEvent('envoy-json', LINES['envoy-json']);
    expect(json).toMatchObject({ ok: true, value: { server: 'locations' }, warnings: [{ field: 'server' }] });
    const serverOf = (host: string | undefined) => (host === 'locations' ? 'locations-api' : undefined);
    const envoy = proxyLineToEvent('envoy', LINES.envoy, { serverOf });
    expect(envoy).toMatchObject({ ok: true, value: { server: 'locations-api' }, warnings: [] });
    const combined = proxyLineToEvent('nginx-combined', LINES['nginx-combined'], { serverOf });
    expect(combined).toMatchObject({ ok: true, value: { server: 'unknown' }, warnings: [{ field: 'server' }] });
  });
});
