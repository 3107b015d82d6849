import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectFileFormat } from '../../api/cli/log-format.ts';
import { type Frame, type LensEvent, validateEvent } from '../../shared/event.ts';
import { rpcMethodOf, rpcNameOf } from '../../shared/frames.ts';
import { detectFormat, nginxJsonLineToEvent, type ProxyEventValue } from '../../shared/proxy-logs/index.ts';

/**
 * The `Mcp-Method`, `Mcp-Name` and `MCP-Protocol-Version` request headers in the nginx JSON logs of the recorded
 * corpora (tests/fixtures/corpus/), checked against what the clients recorded sending. mcp-ts-v2 (the official
 * TypeScript SDK v2 behind nginx 1.22) logs all three as `http_mcp_method`, `http_mcp_name` and
 * `http_mcp_protocol_version`; mcp-python logs the version only; a2a-js logs the version variable, always empty.
 */

const CORPORA = ['mcp-ts-v2', 'mcp-python', 'a2a-js'] as const;
type Corpus = (typeof CORPORA)[number];
const JSON_LOG = 'nginx-access.json.log';
const COMBINED_LOG = 'nginx-access.combined.log';
const HEADER_KEYS = ['http_mcp_method', 'http_mcp_name', 'http_mcp_protocol_version'];
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

const pathOf = (corpus: Corpus, file: string) =>
  fileURLToPath(new URL(`../fixtures/corpus/${corpus}/${file}`, import.meta.url));
const text = (corpus: Corpus, file: string) => readFileSync(pathOf(corpus, file), 'utf8');
const json = <T>(corpus: Corpus, file: string) => JSON.parse(text(corpus, file)) as T;
const linesOf = (corpus: Corpus, file: string) =>
  text(corpus, file)
    .split('\n')
    .filter((l) => l.length > 0);

interface ClientRecord {
  id: string;
  ts: string;
  client: string;
  server: string;
  http?: { requestId?: string; traceparent?: string };
  request: Frame | null;
  response: Frame | null;
}

/** The headers a client sent, as its record shows them; `undefined` where it sent none. */
interface Sent {
  method?: string;
  name?: string;
  protocolVersion?: string;
}

interface Read {
  raw: Record<string, unknown>;
  value: ProxyEventValue;
  event: LensEvent;
  record: ClientRecord;
}

/** The paths the corpora's nginx.conf gives each server (one log holds both servers of mcp-ts-v2). */
function serverOf(corpus: Corpus) {
  const servers = (json<{ server: string[] }>(corpus, 'expected.json').server ?? []) as string[];
  return (_host: string | undefined, path: string | undefined) =>
    corpus === 'mcp-ts-v2' ? (path === '/legacy/mcp' ? 'ledger-legacy' : 'atlas-notes') : servers[0];
}

/** Every line of the JSON log, read and validated, with the client record of the same request. */
function readLog(corpus: Corpus): Read[] {
  const records = new Map(linesOf(corpus, 'client.ndjson').map((l) => [(JSON.parse(l) as ClientRecord).id, l]));
  const stats = json<{ stats: { joinedByTraceparent: Record<string, string> } }>(corpus, 'expected.json').stats;
  const byRequestId = new Map<string, ClientRecord>();
  for (const [id, requestId] of Object.entries({
    ...json<Record<string, string>>(corpus, 'correlation.json'),
    ...stats.joinedByTraceparent,
  })) {
    byRequestId.set(requestId, JSON.parse(records.get(id) as string) as ClientRecord);
  }
  const options = { serverOf: serverOf(corpus), protocol: corpus === 'a2a-js' ? ('a2a' as const) : ('mcp' as const) };
  return linesOf(corpus, JSON_LOG).map((line, i) => {
    const read = nginxJsonLineToEvent(line, options);
    if (!read.ok) throw new Error(`line ${i + 1} refused: ${read.error.code} ${read.error.message}`);
    expect(read.warnings, `line ${i + 1}`).toEqual([]);
    const parsed = validateEvent(read.value);
    if (!parsed.ok) throw new Error(`line ${i + 1} not an event: ${parsed.error.message}`);
    expect(parsed.warnings, `line ${i + 1}`).toEqual([]);
    const raw = JSON.parse(line) as Record<string, unknown>;
    const record = byRequestId.get(raw.request_id as string);
    if (record === undefined) throw new Error(`line ${i + 1}: no client record has request id ${raw.request_id}`);
    return { raw, value: read.value, event: parsed.event, record };
  });
}

const paramsOf = (frame: Frame | null): Frame => {
  const params = frame?.params;
  return typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as Frame) : {};
};
const metaVersion = (frame: Frame | null): string | undefined => {
  const meta = paramsOf(frame)._meta as Frame | undefined;
  const version = meta?.[PROTOCOL_VERSION];
  return typeof version === 'string' ? version : undefined;
};
const firstString = (...values: unknown[]) => values.find((v): v is string => typeof v === 'string');

/**
 * What each client sent, from its records alone, by the protocol: a 2026-07-28 request (its `_meta` carries the
 * version) sends `Mcp-Method`, `Mcp-Name` with what the method names (`params.name`, `params.uri`, a task's
 * `params.taskId`) and `MCP-Protocol-Version` = its `_meta` version; a 2025-era request after `initialize` sends
 * only `MCP-Protocol-Version`, the version its client's last answered `initialize` negotiated; `initialize`
 * itself, and a client that never negotiated, send none.
 */
function sentBy(records: readonly ClientRecord[]): Map<string, Sent> {
  const sent = new Map<string, Sent>();
  const negotiated = new Map<string, string>();
  for (const record of [...records].sort((a, b) => a.ts.localeCompare(b.ts))) {
    const request = record.request;
    const version = metaVersion(request);
    if (version !== undefined) {
      const params = paramsOf(request);
      sent.set(record.id, {
        method: request?.method as string,
        name: firstString(params.name, params.uri, params.taskId),
        protocolVersion: version,
      });
    } else if (request?.method === 'initialize') {
      sent.set(record.id, {});
      const agreed = (record.response?.result as Frame | undefined)?.protocolVersion;
      if (typeof agreed === 'string') negotiated.set(record.client, agreed);
    } else {
      sent.set(record.id, { protocolVersion: negotiated.get(record.client) });
    }
  }
  return sent;
}

interface Observation {
  event: string;
  case: string;
  body: string;
}

/** strict-probe's raw requests whose headers its record cannot show (see the mcp-ts-v2 README, "strict-probe"). */
function strictProbeExceptions(): Map<string, Sent> {
  const observed = json<{ clients: Record<string, Observation[]> }>('mcp-ts-v2', 'observations.json').clients;
  const exceptions = new Map<string, Sent>();
  for (const o of observed['strict-probe'] ?? []) {
    if (o.case === 'name-header-mismatch') {
      // The client sent a wrong Mcp-Name on purpose; the server's -32020 answer names the header it refused.
      const answer = JSON.parse(o.body) as { error: { code: number; data: { mismatch: { header: string } } } };
      expect(answer.error.code).toBe(-32020);
      exceptions.set(o.event, {
        method: 'tools/call',
        name: answer.error.data.mismatch.header,
        protocolVersion: '2026-07-28',
      });
    }
    if (o.case === 'malformed-json') {
      // A body that is no JSON (a truncated `prompts/list` request) leaves the record without a frame; the
      // recording's gen/clients.mjs sent it with the 2026-07-28 headers of `prompts/list`. The server answered -32700.
      expect((JSON.parse(o.body) as { error: { code: number } }).error.code).toBe(-32700);
      exceptions.set(o.event, { method: 'prompts/list', protocolVersion: '2026-07-28' });
    }
  }
  expect([...exceptions.keys()].sort()).toEqual(['strict-probe-001', 'strict-probe-010']);
  return exceptions;
}

describe('the nginx JSON log of mcp-ts-v2 (MCP 2026-07-28 behind nginx 1.22)', () => {
  const read = readLog('mcp-ts-v2');
  const records = read.map((r) => r.record);
  const sent = sentBy(records);
  const exceptions = strictProbeExceptions();
  const expectedOf = (record: ClientRecord) => exceptions.get(record.id) ?? (sent.get(record.id) as Sent);

  it('reads every line, none refused, none warned, each joined to its own client record', () => {
    expect(read).toHaveLength(107);
    expect(new Set(records.map((r) => r.id)).size).toBe(read.length);
    for (const { value, event, record } of read) {
      // nginx's request id is the X-Request-Id the client recorded (the two aborted requests saw no answer).
      if (record.http?.requestId !== undefined) expect(value.http?.requestId).toBe(record.http.requestId);
      else expect(value.http?.traceparent).toBe(record.http?.traceparent);
      expect(event.server, record.id).toBe(record.server);
    }
  });

  it('gives every line the method, name and protocol version its client sent', () => {
    for (const { event, record } of read) {
      const expected = expectedOf(record);
      expect(
        { method: event.http?.mcpMethod, name: event.http?.mcpName, protocolVersion: event.http?.protocolVersion },
        record.id,
      ).toEqual({ method: expected.method, name: expected.name, protocolVersion: expected.protocolVersion });
    }
  });

  it('has all three where the request was 2026-07-28, the version alone on 2025-era requests after initialize', () => {
    const count = (test: (e: LensEvent) => boolean) => read.filter(({ event }) => test(event)).length;
    const modern = records.filter((r) => metaVersion(r.request) !== undefined).length;
    // Every request with a 2026-07-28 envelope (strict-probe-003's says 2099-01-01, and so did its header), and the
    // malformed one whose body could not say so.
    expect(count((e) => e.http?.mcpMethod !== undefined)).toBe(modern + 1);
    expect(count((e) => e.http?.mcpMethod !== undefined && e.http.protocolVersion !== undefined)).toBe(modern + 1);
    expect(count((e) => e.http?.protocolVersion === '2099-01-01')).toBe(1);
    expect(count((e) => e.http?.protocolVersion === '2025-11-25')).toBeGreaterThan(0);
    expect(count((e) => e.http?.mcpName !== undefined)).toBeGreaterThan(0);
    for (const { event, record } of read) {
      if (event.http?.protocolVersion === '2025-11-25') expect(event.http.mcpMethod, record.id).toBeUndefined();
      if (event.http?.mcpMethod === undefined) expect(event.http?.mcpName, record.id).toBeUndefined();
    }
  });

  it("gives a proxy line without a frame its client's method and name, through rpcMethodOf and rpcNameOf", () => {
    let named = 0;
    for (const { event, record } of read) {
      if (event.http?.mcpMethod === undefined || record.request === null) continue;
      expect(event.request).toBeUndefined();
      expect(rpcMethodOf(event), record.id).toBe(record.request.method);
      const params = paramsOf(record.request);
      const bodyName = firstString(params.name, params.uri, params.taskId) ?? null;
      // strict-probe-001's header named another tool than its body, which is why the server refused it.
      if (record.id === 'strict-probe-001') expect(rpcNameOf(event)).not.toBe(bodyName);
      else expect(rpcNameOf(event), record.id).toBe(bodyName);
      if (bodyName !== null) named++;
    }
    expect(named).toBeGreaterThan(40);
  });

  it('is detected as nginx-json from its first lines, by the reader and by the CLI', async () => {
    expect(detectFormat(linesOf('mcp-ts-v2', JSON_LOG).slice(0, 5))).toBe('nginx-json');
    expect(detectFormat(linesOf('mcp-ts-v2', COMBINED_LOG).slice(0, 5))).toBe('nginx-combined');
    expect(await detectFileFormat(pathOf('mcp-ts-v2', JSON_LOG))).toBe('nginx-json');
    expect(await detectFileFormat(pathOf('mcp-ts-v2', COMBINED_LOG))).toBe('nginx-combined');
  });
});

describe.each(['mcp-python', 'a2a-js'] as const)('the nginx JSON log of %s', (corpus) => {
  const read = readLog(corpus);

  it('reads exactly as it would without the header variables, but for the protocol version it logged', () => {
    const options = { serverOf: serverOf(corpus), protocol: corpus === 'a2a-js' ? ('a2a' as const) : ('mcp' as const) };
    for (const { raw, value, record } of read) {
      const stripped = { ...raw };
      for (const key of HEADER_KEYS) delete stripped[key];
      const without = nginxJsonLineToEvent(JSON.stringify(stripped), options);
      const { protocolVersion, ...http } = value.http ?? {};
      expect(without, record.id).toEqual({ ok: true, warnings: [], value: { ...value, http } });
      const logged = raw.http_mcp_protocol_version;
      expect(protocolVersion, record.id).toBe(logged === '' || logged === undefined ? undefined : logged);
      expect(value.http, record.id).not.toHaveProperty('mcpMethod');
      expect(value.http, record.id).not.toHaveProperty('mcpName');
    }
  });

  it('gives each line the protocol version its client sent, and none where it sent none', () => {
    const sent = sentBy(read.map((r) => r.record));
    for (const { event, record } of read) {
      expect(event.http?.protocolVersion, record.id).toBe(sent.get(record.id)?.protocolVersion);
    }
    const versions = new Set(read.map(({ event }) => event.http?.protocolVersion));
    expect(versions).toEqual(
      corpus === 'mcp-python' ? new Set([undefined, '2025-11-25', '2026-07-28']) : new Set([undefined]),
    );
  });
});
