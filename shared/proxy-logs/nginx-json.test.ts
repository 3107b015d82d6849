import { describe, expect, it } from 'vitest';
import { validateEvent } from '../event.ts';
import { nginxJsonLineToEvent } from './nginx-json.ts';

/** A line of the corpus's `fed_json` format (shared/corpus/nginx.conf) with these members changed. */
function line(changes: Record<string, unknown> = {}, drop: string[] = []): string {
  const base: Record<string, unknown> = {
    time_iso8601: '2026-12-02T02:42:43+00:00',
    msec: '1796179363.878',
    remote_addr: '127.0.0.1',
    request_method: 'POST',
    request_uri: '/mcp',
    status: 200,
    request_time: 0.012,
    upstream_status: '200',
    upstream_response_time: '0.012',
    request_id: 'fd14d0d6d8c01fc506d08c8c71ae452b',
    http_mcp_session_id: '',
    sent_http_mcp_session_id: '',
    http_mcp_protocol_version: '2025-11-25',
    http_a2a_version: '',
    sent_http_content_type: 'text/event-stream',
    sent_http_retry_after: '',
    http_traceparent: '00-530bd4991f469a45b3221bc03ba34cd1-b245e89d2e63a5fc-01',
    http_user_agent: 'desk-host/2.0 mcp-python/2.3.0',
    request_length: 630,
    body_bytes_sent: 343,
  };
  for (const key of drop) delete base[key];
  return JSON.stringify({ ...base, ...changes });
}

const SERVER = { server: 'release-desk' };

function read(text: string, options = {}) {
  const result = nginxJsonLineToEvent(text, { ...SERVER, ...options });
  if (!result.ok) throw new Error(`refused: ${result.error.code} ${result.error.message}`);
  return result;
}

/** Kept, and an event once validated; the warnings of both steps. */
function kept(text: string, options = {}) {
  const result = read(text, options);
  const parsed = validateEvent(result.value);
  if (!parsed.ok) throw new Error(`not an event: ${parsed.error.message}`);
  return { value: result.value, event: parsed.event, warnings: [...result.warnings, ...parsed.warnings] };
}

describe('nginxJsonLineToEvent', () => {
  it('maps the nginx variables to the native event', () => {
    const { value, warnings } = read(line({ http_mcp_session_id: '9f1c', sent_http_retry_after: '2', status: 429 }));
    expect(warnings).toEqual([]);
    expect(value).toEqual({
      ts: 1796179363878 - 12,
      source: 'proxy',
      server: 'release-desk',
      client: 'desk-host/2.0 mcp-python/2.3.0',
      session: '9f1c',
      http: {
        method: 'POST',
        path: '/mcp',
        status: 429,
        retryAfter: '2',
        requestId: 'fd14d0d6d8c01fc506d08c8c71ae452b',
        traceparent: '00-530bd4991f469a45b3221bc03ba34cd1-b245e89d2e63a5fc-01',
        protocolVersion: '2025-11-25',
      },
      latencyMs: 12,
      proxy: {
        upstreamStatus: '200',
        userAgent: 'desk-host/2.0 mcp-python/2.3.0',
        remoteAddr: '127.0.0.1',
        loggedAt: 1796179363878,
      },
    });
    expect(validateEvent(value)).toMatchObject({ ok: true, warnings: [], event: { http: { retryAfter: 2 } } });
  });

  it('reads $msec from its digits: seconds with a millisecond fraction, no float error', () => {
    expect(read(line({ msec: '1796179362.366', request_time: 0 })).value.ts).toBe(1796179362366);
    expect(read(line({ msec: 1796179362.366, request_time: 0 })).value.ts).toBe(1796179362366);
    expect(read(line({ msec: '1796179362', request_time: '0.000' })).value.ts).toBe(1796179362000);
  });

  it('falls back to $time_iso8601 (whole seconds) without $msec', () => {
    const { value, warnings } = read(line({ request_time: 0.5 }, ['msec']));
    expect(value.ts).toBe(Date.parse('2026-12-02T02:42:43+00:00') - 500);
    expect(warnings).toEqual([]);
    const bad = read(line({ msec: 'soon' }));
    expect(bad.value.proxy?.loggedAt).toBe(Date.parse('2026-12-02T02:42:43Z'));
    expect(bad.warnings).toEqual([expect.objectContaining({ field: 'ts' })]);
  });

  it('reads the end of the request as its time when $request_time is not logged', () => {
    const { value } = read(line({}, ['request_time']));
    expect(value.ts).toBe(1796179363878);
    expect(value.latencyMs).toBeUndefined();
  });

  it('refuses a line without a time, naming the keys it looked for', () => {
    const result = nginxJsonLineToEvent(line({}, ['msec', 'time_iso8601']), SERVER);
    expect(result).toMatchObject({ ok: false, error: { code: 'no_timestamp' } });
    if (!result.ok) expect(result.error.message).toContain('"msec"');
  });

  it('refuses what is not a JSON object, and an empty line', () => {
    for (const text of [
      '127.0.0.1 - - [02/Dec/2026:02:42:42 +0000] "GET / HTTP/1.1" 200 1 "-" "-"',
      '[1,2]',
      '{"a":',
      'null',
    ]) {
      expect(nginxJsonLineToEvent(text, SERVER)).toMatchObject({ ok: false, error: { code: 'not_the_format' } });
    }
    expect(nginxJsonLineToEvent('  ', SERVER)).toMatchObject({ ok: false, error: { code: 'empty_line' } });
  });

  it('reads "" and "-" as absent, the way nginx writes an unset variable', () => {
    const { value, warnings } = read(
      line({
        upstream_status: '-',
        http_traceparent: '',
        http_user_agent: '-',
        sent_http_retry_after: '-',
        request_id: '',
        http_mcp_method: '',
        http_mcp_name: '-',
        http_mcp_protocol_version: '-',
      }),
    );
    expect(warnings).toEqual([]);
    expect(value.proxy).toEqual({ remoteAddr: '127.0.0.1', loggedAt: 1796179363878 });
    expect(value.http).toEqual({ method: 'POST', path: '/mcp', status: 200 });
  });

  it('never takes the session an answer handed out ($sent_http_mcp_session_id)', () => {
    const { value } = read(line({ status: 400, request_method: 'GET', sent_http_mcp_session_id: 'a1b2' }));
    expect(value.session).toBeUndefined();
  });

  it('takes $uri where the format has no $request_uri', () => {
    expect(read(line({ uri: '/mcp' }, ['request_uri'])).value.http?.path).toBe('/mcp');
    expect(read(line({ uri: '/mcp', request_uri: '/mcp?x=1' })).value.http?.path).toBe('/mcp?x=1');
  });

  it("reads the operator's own keys through the fields option", () => {
    const custom = JSON.stringify({
      '@timestamp': '1796179363.878',
      verb: 'DELETE',
      target: '/mcp',
      code: '404',
      took: '0.002',
      mcp_session: 'abc',
      rid: 'r-1',
      vhost: 'desk.example:443',
    });
    const { value, warnings } = read(custom, {
      server: undefined,
      fields: {
        msec: '@timestamp',
        request_method: 'verb',
        request_uri: 'target',
        status: 'code',
        request_time: 'took',
        http_mcp_session_id: 'mcp_session',
        request_id: 'rid',
        http_host: 'vhost',
      },
    });
    expect(value).toMatchObject({
      ts: 1796179363876,
      server: 'desk.example:443',
      session: 'abc',
      http: { method: 'DELETE', path: '/mcp', status: 404, requestId: 'r-1' },
      latencyMs: 2,
      proxy: { host: 'desk.example:443' },
    });
    // The line logs neither a user agent nor a remote address: nothing names its client.
    expect(value.client).toBeUndefined();
    expect(warnings).toEqual([expect.objectContaining({ field: 'server' })]);
  });

  it('never reads a key from the prototype: a field named "constructor" is absent unless the line has it', () => {
    const { value } = read(line(), { fields: { http_user_agent: 'constructor', request_id: '__proto__' } });
    expect(value.proxy?.userAgent).toBeUndefined();
    expect(value.http?.requestId).toBeUndefined();
  });

  describe('the server', () => {
    it('comes from serverOf(host, path) first, then the server option', () => {
      const serverOf = (_host: string | undefined, path: string | undefined) =>
        path?.startsWith('/a2a') ? { server: 'relay-agent', protocol: 'a2a' as const } : undefined;
      expect(read(line({ request_uri: '/a2a/jsonrpc' }), { serverOf }).value).toMatchObject({
        server: 'relay-agent',
        protocol: 'a2a',
      });
      expect(read(line(), { serverOf }).value.server).toBe('release-desk');
    });

    it('is the line\'s host, with a warning, when nothing names it; else "unknown"', () => {
      const byHost = read(line({ http_host: '127.0.0.1:3300' }), { server: undefined });
      expect(byHost.value.server).toBe('127.0.0.1:3300');
      expect(byHost.warnings).toEqual([{ field: 'server', message: expect.stringContaining('named after its host') }]);
      const none = read(line(), { server: undefined });
      expect(none.value.server).toBe('unknown');
      expect(none.warnings).toEqual([{ field: 'server', message: expect.stringContaining('"unknown"') }]);
      const huge = read(line({ host: 'h'.repeat(5000) }), { server: undefined });
      expect(huge.value.server).toBe('unknown');
      expect(validateEvent(huge.value).ok).toBe(true);
    });
  });

  describe('keeps hostile lines, with warnings', () => {
    it('a request nginx could not parse (a TLS handshake on the plain port): no method, no path', () => {
      const { event, value, warnings } = kept(
        line({
          request_method: '',
          request_uri: '',
          status: 400,
          upstream_status: '',
          http_user_agent: '',
          http_mcp_protocol_version: '',
        }),
      );
      expect(event.http).toEqual({
        status: 400,
        requestId: 'fd14d0d6d8c01fc506d08c8c71ae452b',
        traceparent: '00-530bd4991f469a45b3221bc03ba34cd1-b245e89d2e63a5fc-01',
      });
      expect(value.http?.requestId).toBe('fd14d0d6d8c01fc506d08c8c71ae452b');
      expect(warnings).toEqual([expect.objectContaining({ field: 'http' })]);
    });

    it('a method that is not one', () => {
      const { event, warnings } = kept(line({ request_method: '\u0016\u0003\u0001', status: 400 }));
      expect(event.http?.method).toBeUndefined();
      expect(warnings).toEqual([expect.objectContaining({ field: 'http.method' })]);
    });

    it('escaped quotes and backslashes', () => {
      const { value, warnings } = kept(line({ http_user_agent: 'say "hi" \\o/', request_uri: '/q?x="1"' }));
      expect(value.proxy?.userAgent).toBe('say "hi" \\o/');
      expect(value.http?.path).toBe('/q?x="1"');
      expect(warnings).toEqual([]);
    });

    it('unicode in the user agent (escape=json writes it as UTF-8)', () => {
      const { value } = kept(line({ http_user_agent: 'agent/1.0 (ü€ 🚀)' }));
      expect(value.proxy?.userAgent).toBe('agent/1.0 (ü€ 🚀)');
    });

    it('a line of 10 KB: the path dropped by validateEvent, the user agent cut', () => {
      const text = line({ request_uri: `/${'a'.repeat(6000)}`, http_user_agent: 'u'.repeat(5000) });
      expect(text.length).toBeGreaterThan(10_000);
      const { event, value, warnings } = kept(text);
      expect(event.http?.status).toBe(200);
      expect(event.http?.path).toBeUndefined();
      expect(value.proxy?.userAgent).toHaveLength(1024);
      // The line's client is the start of its user agent: a name is at most 200 characters.
      expect(value.client).toBe(value.proxy?.userAgent?.slice(0, 200));
      expect(event.client).toHaveLength(200);
      expect(warnings.map((w) => w.field)).toEqual(['proxy.userAgent', 'http.path']);
    });

    it('a status that is no status, and a status of 000', () => {
      expect(kept(line({ status: 'oops' })).warnings).toEqual([expect.objectContaining({ field: 'http.status' })]);
      const none = kept(line({ status: '000' }));
      expect(none.event.http?.status).toBeUndefined();
      expect(none.warnings).toEqual([expect.objectContaining({ field: 'http.status' })]);
    });

    it('NUL and lone surrogates in what only the proxy keeps', () => {
      const { value, warnings } = kept(line({ http_user_agent: 'a\u0000b\ud800' }));
      expect(value.proxy?.userAgent).toBe('ab\ufffd');
      expect(warnings).toEqual([expect.objectContaining({ field: 'proxy.userAgent' })]);
    });
  });
});
