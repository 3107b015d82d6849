import { describe, expect, it } from 'vitest';
import { CORPORA, type CorpusName, corpusText, expectedOf } from '../../tests/support/corpus.ts';
import { type LensEvent, validateEvent } from '../event.ts';
import type { ProxyEventValue } from './common.ts';
import { detectFormat } from './detect.ts';
import { type ProxyFormat, proxyLineToEvent } from './index.ts';

/**
 * The recorded corpus (tests/fixtures/corpus/, see ../shared/corpus/README.md beside the checkout): Debian's nginx 1.22 in front of
 * the MCP Python SDK and the A2A JS SDK, logging every request twice, as `fed_json` (escape=json) and `combined`.
 */

interface Read {
  value: ProxyEventValue;
  event: LensEvent;
}

/** Every line nginx wrote, as nginx wrote it: the file ends with a newline, and that is all it has after the last. */
function linesOf(corpus: CorpusName, file: string): string[] {
  const text = corpusText(corpus, file);
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

function readAll(corpus: CorpusName, format: ProxyFormat, file: string): Read[] {
  const server = expectedOf(corpus).server[0] as string;
  return linesOf(corpus, file).map((line, i) => {
    const read = proxyLineToEvent(format, line, { server, protocol: corpus === 'a2a-js' ? 'a2a' : 'mcp' });
    if (!read.ok) throw new Error(`${file} line ${i + 1} refused: ${read.error.code} ${read.error.message}`);
    expect(read.warnings, `${file} line ${i + 1}`).toEqual([]);
    const parsed = validateEvent(read.value);
    if (!parsed.ok) throw new Error(`${file} line ${i + 1} not an event: ${parsed.error.message}`);
    expect(parsed.warnings, `${file} line ${i + 1}`).toEqual([]);
    return { value: read.value, event: parsed.event };
  });
}

const JSON_LOG = 'nginx-access.json.log';
const COMBINED_LOG = 'nginx-access.combined.log';
const rawJson = (corpus: CorpusName) => linesOf(corpus, JSON_LOG).map((line) => JSON.parse(line));

describe.each(CORPORA)('the nginx logs of %s', (corpus) => {
  const expected = expectedOf(corpus);
  const events = Object.keys(expected.events).length;

  it('reads every line of both logs, with no warning, into events validateEvent accepts as they are', () => {
    const json = readAll(corpus, 'nginx-json', JSON_LOG);
    const combined = readAll(corpus, 'nginx-combined', COMBINED_LOG);
    // The corpus README: every request is one line in each log.
    expect(json).toHaveLength(events);
    expect(combined).toHaveLength(events);
    for (const { event } of [...json, ...combined]) {
      expect(event).toMatchObject({
        source: 'proxy',
        server: expected.server[0],
        protocol: corpus === 'a2a-js' ? 'a2a' : 'mcp',
      });
      expect(event.http?.method).toMatch(/^(GET|POST|DELETE)$/);
      expect(event.http?.path).toMatch(/^\//);
      expect(event.http?.status).toBeGreaterThanOrEqual(200);
    }
  });

  it('gives each JSON line the method, path and status of the same request in the combined log', () => {
    const json = readAll(corpus, 'nginx-json', JSON_LOG);
    const combined = readAll(corpus, 'nginx-combined', COMBINED_LOG);
    const view = ({ event }: Read) => ({
      method: event.http?.method,
      path: event.http?.path,
      status: event.http?.status,
    });
    expect(json.map(view)).toEqual(combined.map(view));
    json.forEach((line, i) => {
      const other = combined[i] as Read;
      // Both logs' times are the moment nginx wrote the line: $time_local to the second, $msec to the millisecond.
      const loggedAt = line.value.proxy?.loggedAt as number;
      expect(loggedAt - other.event.ts).toBeGreaterThanOrEqual(0);
      expect(loggedAt - other.event.ts).toBeLessThan(1000);
      expect(line.value.proxy?.userAgent).toBe(other.value.proxy?.userAgent);
      expect(line.value.proxy?.remoteAddr).toBe(other.value.proxy?.remoteAddr);
    });
  });

  it("keeps nginx's request ids: exactly the ids the client records were joined by", () => {
    const correlation = JSON.parse(corpusText(corpus, 'correlation.json')) as Record<string, string>;
    const stats = (expected as unknown as { stats: { joinedByTraceparent: Record<string, string> } }).stats;
    const joined = new Set([...Object.values(correlation), ...Object.values(stats.joinedByTraceparent)]);
    const ids = readAll(corpus, 'nginx-json', JSON_LOG).map(({ value }) => value.http?.requestId);
    expect(new Set(ids)).toEqual(joined);
    expect(ids).toHaveLength(joined.size);
    // The request the SDK aborted (no X-Request-Id reached the client) is joined by the traceparent it sent.
    const traceparents = JSON.parse(corpusText(corpus, 'traceparent.json')) as Record<string, string>;
    for (const [eventId, requestId] of Object.entries(stats.joinedByTraceparent)) {
      const line = readAll(corpus, 'nginx-json', JSON_LOG).find(({ value }) => value.http?.requestId === requestId);
      expect(line?.value.http?.traceparent).toBe(traceparents[eventId]);
    }
  });

  it('dates each JSON line at the request start: within 50 ms of the send time of the client record it joins', () => {
    const correlation = JSON.parse(corpusText(corpus, 'correlation.json')) as Record<string, string>;
    const byRequestId = new Map(
      readAll(corpus, 'nginx-json', JSON_LOG).map(({ event, value }) => [value.http?.requestId, event]),
    );
    const clients = corpusText(corpus, 'client.ndjson')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { id: string; ts: string });
    let compared = 0;
    for (const client of clients) {
      const proxy = byRequestId.get(correlation[client.id]);
      if (proxy === undefined) continue;
      expect(Math.abs(proxy.ts - Date.parse(client.ts)), client.id).toBeLessThan(50);
      compared++;
    }
    expect(compared).toBe(Object.keys(correlation).length);
  });

  it('answers 404 to every path the prober tried that the server does not declare', () => {
    const discovery = JSON.parse(corpusText(corpus, 'discovery.json')) as { endpoints: { path: string }[] };
    const declared = new Set(discovery.endpoints.map((e) => e.path));
    for (const [format, file] of [
      ['nginx-json', JSON_LOG],
      ['nginx-combined', COMBINED_LOG],
    ] as const) {
      const undeclared = readAll(corpus, format, file).filter(({ event }) => !declared.has(event.http?.path as string));
      // Starlette redirects POST /mcp/ to /mcp (307) before anything can 404 it; every other undeclared path is 404.
      const probes = undeclared.filter(({ event }) => event.http?.path !== '/mcp/');
      const notDeclared = Object.values(expected.events).filter((e) => e.kind === 'not_declared').length;
      expect(probes).toHaveLength(notDeclared);
      for (const { event } of probes) expect(event.http?.status, `${format} ${event.http?.path}`).toBe(404);
      expect(probes.map(({ event }) => event.http?.path)).toEqual(
        expect.arrayContaining(corpus === 'mcp-python' ? ['/mcp/sse', '/sse'] : ['/.well-known/agent.json', '/rpc']),
      );
    }
  });

  it("takes the session from the request's Mcp-Session-Id, never from the one an answer handed out", () => {
    const raw = rawJson(corpus);
    const read = readAll(corpus, 'nginx-json', JSON_LOG);
    read.forEach(({ event }, i) => {
      const line = raw[i] as Record<string, string>;
      expect(event.session).toBe(line.http_mcp_session_id === '' ? undefined : line.http_mcp_session_id);
    });
    if (corpus === 'mcp-python') {
      // The prober's GET /mcp without a session: 400 with a fresh Mcp-Session-Id that opens nothing.
      const handedOut = read.filter((_, i) => {
        const line = raw[i] as Record<string, string>;
        return line.sent_http_mcp_session_id !== '' && line.http_mcp_session_id === '';
      });
      expect(handedOut.length).toBeGreaterThan(0);
      for (const { event } of handedOut) expect(event.session).toBeUndefined();
      expect(read.filter(({ event }) => event.session !== undefined).length).toBeGreaterThan(0);
    }
  });

  it('reads latency from $request_time, and Retry-After from the answer', () => {
    const raw = rawJson(corpus);
    readAll(corpus, 'nginx-json', JSON_LOG).forEach(({ event }, i) => {
      const line = raw[i] as { request_time: number; status: number };
      expect(event.latencyMs).toBe(Math.round(line.request_time * 1000));
      if (line.status === 429) expect(event.http?.retryAfter).toBe(2);
      else expect(event.http?.retryAfter).toBeUndefined();
    });
  });

  it.each([
    [JSON_LOG, 'nginx-json'],
    [COMBINED_LOG, 'nginx-combined'],
  ])('detects %s from its first 5 lines', (file, format) => {
    expect(detectFormat(linesOf(corpus, file).slice(0, 5))).toBe(format);
  });

  it('detects the client records as native events', () => {
    expect(detectFormat(corpusText(corpus, 'client.ndjson').split('\n').slice(0, 5))).toBe('native');
  });
});

describe('the mcp-python corpus', () => {
  it('keeps what nginx alone saw: the 499 of the aborted request, the 429s and 502s nginx answered itself', () => {
    const read = readAll('mcp-python', 'nginx-json', JSON_LOG);
    const aborted = read.filter(({ event }) => event.http?.status === 499);
    expect(aborted).toHaveLength(1);
    expect(aborted[0]?.value.proxy?.upstreamStatus).toBeUndefined();
    const throttled = read.filter(({ event }) => event.http?.status === 429);
    expect(throttled).toHaveLength(8);
    for (const { value } of throttled) expect(value.proxy?.upstreamStatus).toBeUndefined();
    const down = read.filter(({ event }) => event.http?.status === 502);
    expect(down).toHaveLength(10);
    for (const { value } of down) expect(value.proxy?.upstreamStatus).toBe('502');
  });
});
