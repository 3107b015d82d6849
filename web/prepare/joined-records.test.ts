import { describe, expect, it } from 'vitest';
import {
  answerDisagreement,
  compareRows,
  countedLine,
  formatLoggedAt,
  type JoinedRecord,
  notCountedHint,
  openLabel,
  orderPair,
  proxyFacts,
  recordLabel,
} from './joined-records.ts';

const BURST_REQUEST_ID = '43c3c35f5a932823bb54b595f94bf947';

/** burst-005 of the mcp-python corpus and nginx's line for it, as GET /api/v1/events/:id gives them. */
const client: JoinedRecord = {
  id: 'burst-005',
  ts: '2026-12-02T02:42:57.519Z',
  source: 'client',
  counted: true,
  partner: 'px:ac9f2387df483c09ce77833aa799b4d5',
  latencyMs: 3,
  bucket: 'throttled',
  kind: 'rate_limited',
  rpcCode: null,
  http: { method: 'POST', path: '/tight/mcp', status: 429, requestId: null },
  proxy: null,
};
const proxy: JoinedRecord = {
  ...client,
  id: 'px:ac9f2387df483c09ce77833aa799b4d5',
  ts: '2026-12-02T02:42:57.521Z',
  source: 'proxy',
  counted: false,
  partner: 'burst-005',
  latencyMs: 0,
  http: { ...client.http, requestId: BURST_REQUEST_ID },
  proxy: { userAgent: 'sync-bot/3.1 mcp-python/2.3.0', remoteAddr: '127.0.0.1', loggedAt: 1796179377521 },
};

describe('the two records of one request', () => {
  it('names each record by who logged it, and the link to the other', () => {
    expect(recordLabel('client')).toBe("Client's record");
    expect(recordLabel('proxy')).toBe("Proxy's record");
    expect(recordLabel('otel')).toBe('Record from "otel"');
    expect(openLabel('proxy')).toBe("Open the proxy's record");
    expect(openLabel('client')).toBe("Open the client's record");
  });

  it('says which view counts, whichever record is open', () => {
    const line = "Counted once, with the client's view: the proxy's record is kept for what it saw.";
    expect(countedLine(client, proxy)).toBe(line);
    expect(countedLine(proxy, client)).toBe(line);
    expect(countedLine(client, { ...proxy, counted: true })).toBe(
      'Both records are counted: this request is counted twice.',
    );
    expect(countedLine({ ...client, counted: false }, proxy)).toBe('Neither record is counted.');
  });

  it('marks only a record left out of the counts', () => {
    expect(notCountedHint(client)).toBeNull();
    expect(notCountedHint(proxy)).toBe('not counted: joined to client record');
    expect(notCountedHint({ source: 'client', counted: false })).toBe('not counted');
  });

  it("puts the client's record first, whichever is open", () => {
    expect(orderPair(proxy, client)).toEqual([client, proxy]);
    expect(orderPair(client, proxy)).toEqual([client, proxy]);
    const other = { ...proxy, source: 'otel' };
    expect(orderPair(other, proxy)).toEqual([proxy, other]);
  });

  it('compares the two on what both observers log, in UTC to the millisecond', () => {
    expect(compareRows([client, proxy])).toEqual([
      { term: 'When', values: ['02:42:57.519', '02:42:57.521'] },
      { term: 'Answer', values: ['429', '429'] },
      { term: 'Took', values: ['3 ms', '0 ms'] },
      { term: 'Bucket', values: ['Throttled · rate_limited', 'Throttled · rate_limited'] },
      { term: 'Counted', values: ['yes', 'no'] },
    ]);
    const unknown = compareRows([{ ...client, latencyMs: null, bucket: 'ok', kind: 'ok' }, proxy]);
    expect(unknown[2]?.values[0]).toBe('–');
    expect(unknown[3]?.values[0]).toBe('OK');
  });

  it('says where they disagree on the answer, and whose answer counts', () => {
    expect(answerDisagreement([client, proxy])).toBeNull();
    const rpcError = { ...client, http: { ...client.http, status: 200 }, rpcCode: -32602 };
    const logged200 = { ...proxy, http: { ...proxy.http, status: 200 } };
    expect(answerDisagreement([rpcError, logged200])).toBe(
      "They disagree on the answer: the client saw 200 · -32602, the proxy 200. The client's answer is the one counted.",
    );
    const timedOut = { ...client, http: { ...client.http, status: null } };
    expect(answerDisagreement([timedOut, { ...proxy, http: { ...proxy.http, status: 499 } }])).toBe(
      "They disagree on the answer: the client saw no answer, the proxy 499. The client's answer is the one counted.",
    );
  });
});

describe("the proxy's own facts", () => {
  it('formats when the proxy wrote its line, and refuses what is not a time', () => {
    expect(formatLoggedAt(1796179377521)).toBe('2 Dec 02:42:57.521 UTC');
    expect(formatLoggedAt('1796179377521')).toBeNull();
    expect(formatLoggedAt(Number.NaN)).toBeNull();
    expect(formatLoggedAt(9e15)).toBeNull();
    expect(formatLoggedAt(undefined)).toBeNull();
  });

  it('lists request id, upstream status, timing and user agent first; a 429 of its own reached no upstream', () => {
    expect(proxyFacts(proxy)).toEqual([
      { key: 'http.requestId', term: 'Request id', value: BURST_REQUEST_ID },
      { key: 'upstreamStatus', term: 'Upstream status', value: 'none logged' },
      { key: 'timing', term: 'Timing', value: '0 ms, logged 2 Dec 02:42:57.521 UTC' },
      { key: 'userAgent', term: 'User agent', value: 'sync-bot/3.1 mcp-python/2.3.0' },
      { key: 'remoteAddr', term: 'Remote address', value: '127.0.0.1' },
    ]);
  });

  it("keeps an Envoy line's facts and any member it does not know, as text, under its own key", () => {
    const envoy = {
      ...proxy,
      latencyMs: 12,
      http: { ...proxy.http, requestId: null },
      // As the API parses it from the stored JSON: a `__proto__` from a log is an own member.
      proxy: JSON.parse(
        '{"upstreamStatus":"502, 504","upstreamServiceTimeMs":9,"responseFlags":"UF","upstreamHost":"10.0.0.7:8080",' +
          '"host":"mcp.example","zone":"eu-1","__proto__":"from a log","nested":{"a":1},"empty":""}',
      ) as JoinedRecord['proxy'],
    };
    expect(proxyFacts(envoy).map((fact) => [fact.term, fact.value])).toEqual([
      ['Upstream status', '502, 504'],
      ['Timing', '12 ms, upstream 9 ms'],
      ['Host', 'mcp.example'],
      ['Upstream host', '10.0.0.7:8080'],
      ['Response flags', 'UF'],
      ['zone', 'eu-1'],
      ['__proto__', 'from a log'],
      ['nested', '{"a":1}'],
    ]);
    const keys = proxyFacts(envoy).map((fact) => fact.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("has none for a client's record, nor for a native proxy record without a proxy member", () => {
    expect(proxyFacts(client)).toEqual([]);
    expect(proxyFacts({ ...proxy, http: { ...proxy.http, requestId: null }, proxy: null })).toEqual([]);
    expect(proxyFacts({ ...proxy, proxy: null })).toEqual([
      { key: 'http.requestId', term: 'Request id', value: BURST_REQUEST_ID },
    ]);
    expect(proxyFacts({ ...proxy, latencyMs: null, proxy: {} })[1]).toEqual({
      key: 'upstreamStatus',
      term: 'Upstream status',
      value: 'none logged',
    });
  });
});
