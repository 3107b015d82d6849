import { describe, expect, it } from 'vitest';
import { validateEvent } from '../event.ts';
import { rpcMethodOf, rpcNameOf } from '../frames.ts';
import { decodeMcpName } from '../mcp-headers.ts';
import { envoyJsonLineToEvent, envoyLineToEvent } from './envoy.ts';
import { nginxJsonLineToEvent } from './nginx-json.ts';

/**
 * MCP 2026-07-28's request headers (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`) in the access logs that can
 * carry them: nginx JSON (`$http_mcp_*`) and Envoy JSON (`%REQ(MCP-*)%` under the README's keys). The recorded
 * nginx log of the mcp-ts-v2 corpus is read in corpus-headers.test.ts; these are the edges it does not have.
 */

/** A line of the mcp-ts-v2 corpus's nginx `mcp_json` format (its nginx.conf), harbor-agent's `tools/call lookup`. */
function nginxLine(changes: Record<string, unknown> = {}, drop: string[] = []): string {
  const base: Record<string, unknown> = {
    time_iso8601: '2026-12-06T01:49:34+00:00',
    msec: '1796521774.631',
    remote_addr: '127.0.0.1',
    request_method: 'POST',
    request_uri: '/mcp',
    status: 200,
    request_time: 0.006,
    upstream_status: '200',
    upstream_response_time: '0.006',
    request_id: '9b471dfd4f2f665969d842c72d53fd3e',
    http_mcp_method: 'tools/call',
    http_mcp_name: 'lookup',
    http_mcp_protocol_version: '2026-07-28',
    http_mcp_session_id: '',
    sent_http_mcp_session_id: '',
    sent_http_content_type: 'application/json',
    sent_http_retry_after: '',
    sent_http_allow: '',
    http_traceparent: '00-66949e30ee6620781e3b39fa78849c85-b9e2e0f14cc9df00-01',
    http_user_agent: 'harbor-agent/2.0 (mcp-sdk-ts 2.4.0)',
    request_length: 766,
    body_bytes_sent: 230,
  };
  for (const key of drop) delete base[key];
  return JSON.stringify({ ...base, ...changes });
}

/** The README's Envoy `json_format`, as Envoy writes it (`json_format`: every value a string, unset ones `-`). */
function envoyLine(changes: Record<string, unknown> = {}, drop: string[] = []): string {
  const base: Record<string, unknown> = {
    start_time: '2026-12-06T01:49:34.625Z',
    method: 'POST',
    path: '/mcp',
    response_code: '200',
    duration: '6',
    x_request_id: 'cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2',
    authority: 'notes.example',
    user_agent: 'harbor-agent/2.0 (mcp-sdk-ts 2.4.0)',
    mcp_session_id: '-',
    traceparent: '00-66949e30ee6620781e3b39fa78849c85-b9e2e0f14cc9df00-01',
    retry_after: '-',
    mcp_method: 'tools/call',
    mcp_name: 'lookup',
    mcp_protocol_version: '2026-07-28',
  };
  for (const key of drop) delete base[key];
  return JSON.stringify({ ...base, ...changes });
}

type Reader = (line: string) => ReturnType<typeof nginxJsonLineToEvent>;
const fromNginx: Reader = (line) => nginxJsonLineToEvent(line, { server: 'atlas-notes' });
const fromEnvoy: Reader = (line) => envoyJsonLineToEvent(line, { server: 'atlas-notes' });

/** Read, then validated as ingest does; the warnings of both steps. */
function kept(reader: Reader, line: string) {
  const read = reader(line);
  if (!read.ok) throw new Error(`refused: ${read.error.code} ${read.error.message}`);
  const parsed = validateEvent(read.value);
  if (!parsed.ok) throw new Error(`not an event: ${parsed.error.message}`);
  return { value: read.value, event: parsed.event, warnings: [...read.warnings, ...parsed.warnings] };
}

/** SEP-2243's value encoding, written here from its definition (Base64 of the UTF-8 bytes, standard alphabet). */
const encoded = (name: string) => `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;

const FORMATS = [
  {
    format: 'nginx JSON',
    reader: fromNginx,
    line: nginxLine,
    keys: ['http_mcp_method', 'http_mcp_name', 'http_mcp_protocol_version'],
  },
  {
    format: 'Envoy JSON',
    reader: fromEnvoy,
    line: envoyLine,
    keys: ['mcp_method', 'mcp_name', 'mcp_protocol_version'],
  },
] as const;

describe.each(FORMATS)('$format: the MCP request headers', ({ reader, line, keys }) => {
  const [methodKey, nameKey, versionKey] = keys;

  it('become http.mcpMethod, http.mcpName and http.protocolVersion, which give a frameless line its method and name', () => {
    const { value, event, warnings } = kept(reader, line());
    expect(warnings).toEqual([]);
    expect(value.http).toMatchObject({ mcpMethod: 'tools/call', mcpName: 'lookup', protocolVersion: '2026-07-28' });
    expect(event.http).toMatchObject({ mcpMethod: 'tools/call', mcpName: 'lookup', protocolVersion: '2026-07-28' });
    expect(event.request).toBeUndefined();
    expect(rpcMethodOf(event)).toBe('tools/call');
    expect(rpcNameOf(event)).toBe('lookup');
  });

  it('read a resource URI as the name, and a method that names nothing without one', () => {
    const read = kept(reader, line({ [methodKey]: 'resources/read', [nameKey]: 'notes://r-110' }));
    expect(rpcNameOf(read.event)).toBe('notes://r-110');
    const discover = kept(reader, line({ [methodKey]: 'server/discover', [nameKey]: '-' }));
    expect(discover.event.http).toMatchObject({ mcpMethod: 'server/discover', protocolVersion: '2026-07-28' });
    expect(discover.event.http).not.toHaveProperty('mcpName');
    expect(discover.warnings).toEqual([]);
  });

  it.each([
    ['"" (nginx escape=json)', ''],
    ['"-" (nginx default escaping, Envoy json_format)', '-'],
    ['null (Envoy typed_json_format)', null],
  ])('read %s as absent, without a warning', (_, unset) => {
    const { event, warnings } = kept(reader, line({ [methodKey]: unset, [nameKey]: unset, [versionKey]: unset }));
    expect(warnings).toEqual([]);
    expect(event.http).not.toHaveProperty('mcpMethod');
    expect(event.http).not.toHaveProperty('mcpName');
    expect(event.http).not.toHaveProperty('protocolVersion');
    expect(event.http).toMatchObject({ method: 'POST', path: '/mcp', status: 200 });
    expect(rpcMethodOf(event)).toBeNull();
  });

  it('are absent where the format does not log them, and the rest of the line reads the same', () => {
    const without = kept(reader, line({}, [...keys]));
    const withUnset = kept(reader, line({ [methodKey]: '-', [nameKey]: '-', [versionKey]: '-' }));
    expect(without.warnings).toEqual([]);
    expect(without.value).toEqual(withUnset.value);
    const full = kept(reader, line());
    const { mcpMethod, mcpName, protocolVersion, ...http } = full.value.http ?? {};
    expect([mcpMethod, mcpName, protocolVersion]).toEqual(['tools/call', 'lookup', '2026-07-28']);
    expect({ ...full.value, http }).toEqual(without.value);
  });

  it('keep a 2025-era line as it is: the version the client sent after initialize, no method, no name', () => {
    const { event, warnings } = kept(reader, line({ [methodKey]: '-', [nameKey]: '-', [versionKey]: '2025-11-25' }));
    expect(warnings).toEqual([]);
    expect(event.http?.protocolVersion).toBe('2025-11-25');
    expect(rpcMethodOf(event)).toBeNull();
  });

  it('decode a Base64-encoded Mcp-Name (non-ASCII, edge spaces, a literal that looks like the marker)', () => {
    for (const name of ['tööl_unicode', '検索', 'notes://r 110 ', ' padded', '=?base64?abc?=', 'emoji 🚀']) {
      const { event, warnings } = kept(reader, line({ [nameKey]: encoded(name) }));
      expect(warnings, name).toEqual([]);
      expect(event.http?.mcpName, name).toBe(name);
      expect(rpcNameOf(event), name).toBe(name);
    }
  });

  it('keep a marker around something that is not Base64 of UTF-8 as logged, with a warning', () => {
    for (const value of ['=?base64?not base64!?=', '=?base64?/w==?=', '=?base64?abc?=']) {
      const { event, warnings } = kept(reader, line({ [nameKey]: value }));
      expect(event.http?.mcpName, value).toBe(value);
      expect(warnings, value).toEqual([{ field: 'http.mcpName', message: expect.stringContaining('Base64') }]);
    }
  });

  it('read an upper-case marker and a raw UTF-8 name (a client that did not encode) as the literal text', () => {
    const upper = `=?BASE64?${Buffer.from('x').toString('base64')}?=`;
    expect(kept(reader, line({ [nameKey]: upper })).event.http?.mcpName).toBe(upper);
    expect(kept(reader, line({ [nameKey]: 'tööl' })).event.http?.mcpName).toBe('tööl');
  });

  it('never cut a value: validateEvent drops one over its limit, with a warning, and keeps the line', () => {
    const uri = `notes://${'n'.repeat(2100)}`;
    const { value, event, warnings } = kept(reader, line({ [nameKey]: uri, [methodKey]: 'm'.repeat(300) }));
    expect(value.http?.mcpName).toBe(uri);
    expect(event.http).not.toHaveProperty('mcpName');
    expect(event.http).not.toHaveProperty('mcpMethod');
    expect(event.http?.protocolVersion).toBe('2026-07-28');
    expect(warnings.map((w) => w.field).sort()).toEqual(['http.mcpMethod', 'http.mcpName']);
    const long = `notes://${'n'.repeat(2000)}`;
    expect(kept(reader, line({ [nameKey]: long })).event.http?.mcpName).toBe(long);
  });
});

describe('the fields option names the keys of the MCP headers', () => {
  it('nginx: by variable name; a renamed variable is no longer read under its own name', () => {
    const text = nginxLine(
      { rpc_method: 'prompts/get', rpc_name: 'weekly', mcp_version: '2026-07-28', http_mcp_method: 'tools/call' },
      ['http_mcp_name', 'http_mcp_protocol_version'],
    );
    const read = nginxJsonLineToEvent(text, {
      server: 'atlas-notes',
      fields: { http_mcp_method: 'rpc_method', http_mcp_name: 'rpc_name', http_mcp_protocol_version: 'mcp_version' },
    });
    expect(read).toMatchObject({
      ok: true,
      warnings: [],
      value: { http: { mcpMethod: 'prompts/get', mcpName: 'weekly', protocolVersion: '2026-07-28' } },
    });
  });

  it('Envoy: by command operator', () => {
    const text = envoyLine({ rpc_method: 'tools/call', rpc_name: 'publish', version: '2026-07-28' }, [
      'mcp_method',
      'mcp_name',
      'mcp_protocol_version',
    ]);
    const read = envoyJsonLineToEvent(text, {
      server: 'atlas-notes',
      fields: { 'REQ(MCP-METHOD)': 'rpc_method', 'REQ(MCP-NAME)': 'rpc_name', 'REQ(MCP-PROTOCOL-VERSION)': 'version' },
    });
    expect(read).toMatchObject({
      ok: true,
      warnings: [],
      value: { http: { mcpMethod: 'tools/call', mcpName: 'publish', protocolVersion: '2026-07-28' } },
    });
    // Named elsewhere, the README key is not read.
    const renamed = envoyJsonLineToEvent(envoyLine(), {
      server: 'atlas-notes',
      fields: { 'REQ(MCP-METHOD)': 'rpc_method' },
    });
    expect(renamed.ok && renamed.value.http?.mcpMethod).toBeUndefined();
    expect(renamed.ok && renamed.value.http?.mcpName).toBe('lookup');
  });
});

describe("Envoy's default text format", () => {
  it('has no MCP headers: a line has its HTTP method only', () => {
    const read = envoyLineToEvent(
      '[2026-12-06T01:49:34.625Z] "POST /mcp HTTP/1.1" 200 - 766 230 6 5 "-" "harbor-agent/2.0" ' +
        '"cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "notes.example" "127.0.0.1:3410"',
      { server: 'atlas-notes' },
    );
    expect(read).toMatchObject({ ok: true, warnings: [], value: { http: { method: 'POST', path: '/mcp' } } });
    expect(read.ok && Object.keys(read.value.http ?? {}).filter((k) => /mcp|protocol/i.test(k))).toEqual([]);
  });
});

describe('decodeMcpName', () => {
  it("decodes the spec's own example (a literal that wears the marker), whose Base64 has a /", () => {
    expect(decodeMcpName('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=')).toBe('=?base64?literal?=');
  });

  it('leaves plain values and half markers alone', () => {
    for (const value of ['lookup', 'notes://r-110', '=?base64?', '?=', '=?base64?=', 'x=?base64?eA==?=']) {
      expect(decodeMcpName(value)).toBe(value);
    }
  });

  it('answers null for a marker around no Base64 of UTF-8: unpadded, URL-safe, spaces, invalid bytes', () => {
    for (const value of ['=?base64?eA?=', '=?base64?-_8=?=', '=?base64?eA= =?=', '=?base64?wyg=?=']) {
      expect(decodeMcpName(value), value).toBeNull();
    }
  });
});
