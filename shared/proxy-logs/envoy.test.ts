import { describe, expect, it } from 'vitest';
import { validateEvent } from '../event.ts';
import { detectFormat } from './detect.ts';
import { envoyJsonLineToEvent, envoyLineToEvent } from './envoy.ts';

/*
 * No Envoy log was recorded for this project. These lines come from the format documentation:
 *
 * DOC_TEXT is Envoy's own "Example of the default Envoy access log format", verbatim, from
 * https://www.envoyproxy.io/docs/envoy/latest/configuration/observability/access_log/usage#default-format-string
 * (envoyproxy/envoy, docs/root/configuration/observability/access_log/usage.rst). The page wraps it over two lines
 * for display; Envoy writes it as one, as its format string says (`... "%UPSTREAM_HOST%"\n`).
 *
 * DOC_DICTIONARY is the same page's "Format Dictionaries" example output, verbatim.
 *
 * The JSON lines are that same documented request, written with the keys of the documented default JSON formats
 * (Istio's EnvoyJSONLogFormatIstio; Envoy Gateway's "Default Access Log",
 * gateway.envoyproxy.io/docs/tasks/observability/proxy-accesslog/) and the value rules of the same Envoy page:
 * json_format renders every value as a string and an unset one as "-"; typed_json_format renders
 * %RESPONSE_CODE%, %BYTES_*% and %DURATION% as numbers, header values as strings and an unset value as null.
 * Keys whose value the documented example does not show are left out (as omit_empty_values would).
 */
const DOC_TEXT =
  '[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" ' +
  '"nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"';
const DOC_DICTIONARY = '{"protocol": "HTTP/1.1", "duration": "123", "my_custom_header": "value_of_MY_CUSTOM_HEADER"}';

const ISTIO_JSON = JSON.stringify({
  start_time: '2016-04-15T20:17:00.310Z',
  method: 'POST',
  path: '/api/v1/locations',
  protocol: 'HTTP/2',
  response_code: '204',
  response_flags: '-',
  bytes_received: '154',
  bytes_sent: '0',
  duration: '226',
  upstream_service_time: '100',
  x_forwarded_for: '10.0.35.28',
  user_agent: 'nsq2http',
  request_id: 'cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2',
  authority: 'locations',
  upstream_host: 'tcp://10.0.2.1:80',
});
const GATEWAY_TYPED_JSON = JSON.stringify({
  start_time: '2016-04-15T20:17:00.310Z',
  method: 'POST',
  'x-envoy-origin-path': '/api/v1/locations',
  protocol: 'HTTP/2',
  response_code: 204,
  response_flags: '-',
  bytes_received: 154,
  bytes_sent: 0,
  duration: 226,
  'x-envoy-upstream-service-time': '100',
  'x-forwarded-for': '10.0.35.28',
  'user-agent': 'nsq2http',
  'x-request-id': 'cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2',
  ':authority': 'locations',
  upstream_host: 'tcp://10.0.2.1:80',
  connection_termination_details: null,
});

/** What every form of the documented request reads as. */
const DOC_EVENT = {
  ts: Date.parse('2016-04-15T20:17:00.310Z'),
  source: 'proxy',
  server: 'locations-api',
  client: 'nsq2http',
  http: {
    method: 'POST',
    path: '/api/v1/locations',
    status: 204,
    requestId: 'cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2',
  },
  latencyMs: 226,
  proxy: {
    userAgent: 'nsq2http',
    forwardedFor: '10.0.35.28',
    protocol: 'HTTP/2',
    upstreamHost: 'tcp://10.0.2.1:80',
    upstreamServiceTimeMs: 100,
    host: 'locations',
  },
};

const SERVER = { server: 'locations-api' };

/** The documentation's line with its optional values unset, as both readers must give it: what is set, kept. */
function expectUnsetRead(result: ReturnType<typeof envoyLineToEvent>): void {
  expect(result.ok && result.value.proxy).toEqual({ userAgent: 'nsq2http', protocol: 'HTTP/2', host: 'locations' });
  expect(result.ok && result.value.http?.requestId).toBe('cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2');
}

describe("Envoy's default text format", () => {
  it("reads the documentation's example line", () => {
    const result = envoyLineToEvent(DOC_TEXT, SERVER);
    expect(result).toEqual({ ok: true, value: DOC_EVENT, warnings: [] });
    if (result.ok) expect(validateEvent(result.value)).toMatchObject({ ok: true, warnings: [] });
    expect(envoyLineToEvent(`${DOC_TEXT}\n`, SERVER)).toEqual(result);
  });

  it('names the server after %REQ(:AUTHORITY)%, with a warning, when nothing else names it', () => {
    const result = envoyLineToEvent(DOC_TEXT);
    expect(result).toMatchObject({
      ok: true,
      value: { server: 'locations' },
      warnings: [{ field: 'server', message: expect.stringContaining('"locations"') }],
    });
  });

  it('reads "-" (the documented mark of an unset value) as absent', () => {
    const line = DOC_TEXT.replace(' 100 "10.0.35.28"', ' - "-"').replace('"tcp://10.0.2.1:80"', '"-"');
    expectUnsetRead(envoyLineToEvent(line, SERVER));
  });

  it('keeps a response code of 0 (no response was begun) without a status, with a warning', () => {
    // The documentation: "a response code of '0' means that the server never sent the beginning of a response";
    // DC is its flag for "Downstream connection termination".
    const result = envoyLineToEvent(DOC_TEXT.replace('" 204 - ', '" 0 DC '), SERVER);
    expect(result).toMatchObject({ ok: true, warnings: [{ field: 'http.status' }] });
    if (!result.ok) return;
    expect(result.value.http).toEqual({
      method: 'POST',
      path: '/api/v1/locations',
      requestId: 'cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2',
    });
    expect(result.value.proxy?.responseFlags).toBe('DC');
    expect(validateEvent(result.value).ok).toBe(true);
  });

  it('reads %START_TIME(%s.%3f)%, the documented seconds form', () => {
    const result = envoyLineToEvent(DOC_TEXT.replace('2016-04-15T20:17:00.310Z', '1527590590.528'), SERVER);
    expect(result.ok && result.value.ts).toBe(1527590590528);
  });

  it('keeps a user agent with a quote in it (Envoy does not escape header values): the fields after it stay put', () => {
    const result = envoyLineToEvent(DOC_TEXT.replace('"nsq2http"', '"nsq "2" http"'), SERVER);
    expect(result.ok && result.value).toMatchObject({
      client: 'nsq "2" http',
      http: { requestId: 'cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2' },
      proxy: { userAgent: 'nsq "2" http', host: 'locations' },
    });
  });

  it('refuses what is not a line of the format', () => {
    for (const line of [
      DOC_DICTIONARY,
      '127.0.0.1 - - [02/Dec/2026:02:42:42 +0000] "POST /mcp HTTP/1.1" 200 343 "-" "ops-console/4.2"',
      '[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204',
      '[2016-04-15 20:17:00.310][1][info][main] starting main dispatch loop',
    ]) {
      expect(envoyLineToEvent(line, SERVER)).toMatchObject({ ok: false, error: { code: 'not_the_format' } });
    }
    expect(envoyLineToEvent(DOC_TEXT.replace('2016-04-15T20:17:00.310Z', 'yesterday'), SERVER)).toMatchObject({
      ok: false,
      error: { code: 'no_timestamp' },
    });
  });

  it('is detected from its lines', () => {
    expect(detectFormat([DOC_TEXT, DOC_TEXT])).toBe('envoy');
  });
});

describe("Envoy's JSON access log", () => {
  it.each([
    ['json_format with Istio keys', ISTIO_JSON],
    ['typed_json_format with Envoy Gateway keys', GATEWAY_TYPED_JSON],
  ])('reads the documented request as %s', (_name, line) => {
    const result = envoyJsonLineToEvent(line, SERVER);
    expect(result).toEqual({ ok: true, value: DOC_EVENT, warnings: [] });
    if (result.ok) expect(validateEvent(result.value)).toMatchObject({ ok: true, warnings: [] });
    expect(detectFormat([line])).toBe('envoy-json');
  });

  it('reads unset values, "-" under json_format and null under typed_json_format, as absent', () => {
    const unset = (value: unknown) =>
      JSON.stringify({
        ...JSON.parse(GATEWAY_TYPED_JSON),
        'x-envoy-upstream-service-time': value,
        'x-forwarded-for': value,
        upstream_host: value,
      });
    for (const value of ['-', null]) {
      expectUnsetRead(envoyJsonLineToEvent(unset(value), SERVER));
    }
  });

  it("refuses the documentation's format-dictionary example: it logs no %START_TIME%", () => {
    expect(envoyJsonLineToEvent(DOC_DICTIONARY, SERVER)).toMatchObject({ ok: false, error: { code: 'no_timestamp' } });
    expect(detectFormat([DOC_DICTIONARY])).toBeNull();
  });

  it("reads the operator's own keys by command operator, including the MCP headers no default logs", () => {
    const line = JSON.stringify({
      ...JSON.parse(DOC_DICTIONARY),
      when: '2016-04-15T20:17:00.310Z',
      verb: 'POST',
      target: '/mcp',
      code: 429,
      session: '9f1c',
      tp: '00-530bd4991f469a45b3221bc03ba34cd1-b245e89d2e63a5fc-01',
      retry: '2',
    });
    const result = envoyJsonLineToEvent(line, {
      ...SERVER,
      fields: {
        START_TIME: 'when',
        'REQ(:METHOD)': 'verb',
        'REQ(X-ENVOY-ORIGINAL-PATH?:PATH)': 'target',
        RESPONSE_CODE: 'code',
        'REQ(MCP-SESSION-ID)': 'session',
        'REQ(TRACEPARENT)': 'tp',
        'RESP(RETRY-AFTER)': 'retry',
      },
    });
    expect(result).toEqual({
      ok: true,
      warnings: [],
      value: {
        ts: Date.parse('2016-04-15T20:17:00.310Z'),
        source: 'proxy',
        server: 'locations-api',
        session: '9f1c',
        http: {
          method: 'POST',
          path: '/mcp',
          status: 429,
          retryAfter: '2',
          traceparent: '00-530bd4991f469a45b3221bc03ba34cd1-b245e89d2e63a5fc-01',
        },
        latencyMs: 123,
        proxy: { protocol: 'HTTP/1.1' },
      },
    });
    if (result.ok) {
      expect(validateEvent(result.value)).toMatchObject({
        ok: true,
        event: { http: { retryAfter: 2, traceparent: '00-530bd4991f469a45b3221bc03ba34cd1-b245e89d2e63a5fc-01' } },
      });
    }
  });

  it('keeps a line with a duration or status it cannot read, with warnings', () => {
    const line = JSON.stringify({ ...JSON.parse(ISTIO_JSON), duration: 'slow', response_code: 'x' });
    const result = envoyJsonLineToEvent(line, SERVER);
    expect(result).toMatchObject({ ok: true, warnings: [{ field: 'latencyMs' }, { field: 'http.status' }] });
  });

  it('refuses what is not a JSON object', () => {
    expect(envoyJsonLineToEvent(DOC_TEXT, SERVER)).toMatchObject({ ok: false, error: { code: 'not_the_format' } });
    expect(envoyJsonLineToEvent('', SERVER)).toMatchObject({ ok: false, error: { code: 'empty_line' } });
  });
});

describe('the json_format the README gives', () => {
  it('reads the session, the traceparent and Retry-After under their README keys', () => {
    const line = JSON.stringify({
      start_time: '2026-12-02T02:42:42.361Z',
      method: 'POST',
      path: '/mcp',
      response_code: 429,
      duration: 3,
      x_request_id: 'r-1',
      authority: 'desk.example',
      user_agent: 'ops-console/4.2',
      mcp_session_id: 's-1',
      traceparent: '00-530bd4991f469a45b3221bc03ba34cd1-b245e89d2e63a5fc-01',
      retry_after: '2',
    });
    const read = envoyJsonLineToEvent(line, { server: 'release-desk' });
    expect(read.ok && read.value).toMatchObject({
      session: 's-1',
      client: 'ops-console/4.2',
      http: {
        status: 429,
        retryAfter: '2',
        requestId: 'r-1',
        traceparent: '00-530bd4991f469a45b3221bc03ba34cd1-b245e89d2e63a5fc-01',
      },
    });
  });
});
