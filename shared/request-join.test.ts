import { describe, expect, it } from 'vitest';
import { JOIN_SKEW_MS, type JoinFacts, pairRecords } from './request-join.ts';

const T = Date.parse('2026-12-02T02:42:42.000Z');
let order = 0;

function client(id: string, facts: Partial<JoinFacts> = {}): JoinFacts {
  return record(id, 'client', facts);
}

function proxy(id: string, facts: Partial<JoinFacts> = {}): JoinFacts {
  return record(id, 'proxy', { latencyMs: 4, ...facts });
}

function record(eventId: string, source: JoinFacts['source'], facts: Partial<JoinFacts>): JoinFacts {
  return {
    eventId,
    source,
    server: 'release-desk',
    ts: T,
    latencyMs: 5,
    session: null,
    httpMethod: 'POST',
    httpPath: '/mcp',
    httpStatus: 200,
    timeout: false,
    requestId: null,
    correlation: null,
    order: order++,
    ...facts,
  };
}

function pairsOf(clients: JoinFacts[], proxies: JoinFacts[]) {
  return pairRecords(clients, proxies)
    .map((p) => `${p.client.eventId}=${p.proxy.eventId}:${p.by}`)
    .sort();
}

describe('pairRecords', () => {
  it('joins by request id first, whatever the times say', () => {
    const pairs = pairsOf(
      [client('c1', { requestId: 'r-2' }), client('c2', { ts: T + 1 })],
      [proxy('p1', { requestId: 'r-1', ts: T + 1 }), proxy('p2', { requestId: 'r-2', ts: T + 90_000 })],
    );
    expect(pairs).toEqual(['c1=p2:request_id', 'c2=p1:timing']);
  });

  it('joins by traceparent a request that never saw its answer (no request id on the client)', () => {
    const tp = 'tp:00-9f69b999a11604999de81aed925342ba-b7ad6b7169203331-01';
    const pairs = pairsOf(
      [client('aborted', { correlation: tp, httpStatus: null, timeout: true, latencyMs: null })],
      [
        proxy('other', { ts: T + 2 }),
        proxy('line', { correlation: tp, requestId: 'r-9', httpStatus: 499, ts: T + 300 }),
      ],
    );
    expect(pairs).toEqual(['aborted=line:correlation']);
  });

  it('never joins two records whose request ids, or traceparents, differ', () => {
    expect(pairsOf([client('c', { requestId: 'a' })], [proxy('p', { requestId: 'b' })])).toEqual([]);
    expect(pairsOf([client('c', { correlation: 'tp:x' })], [proxy('p', { correlation: 'tp:y' })])).toEqual([]);
  });

  it('joins by shape and time only within the skew, and only alike requests', () => {
    expect(pairsOf([client('c')], [proxy('p', { ts: T + JOIN_SKEW_MS })])).toEqual(['c=p:timing']);
    expect(pairsOf([client('c')], [proxy('p', { ts: T + JOIN_SKEW_MS + 1 })])).toEqual([]);
    expect(pairsOf([client('c')], [proxy('p', { httpPath: '/mcp/sse' })])).toEqual([]);
    expect(pairsOf([client('c')], [proxy('p', { httpMethod: 'GET' })])).toEqual([]);
    expect(pairsOf([client('c')], [proxy('p', { server: 'relay-agent' })])).toEqual([]);
    expect(pairsOf([client('c')], [proxy('p', { httpStatus: 502 })])).toEqual([]);
    expect(pairsOf([client('c', { session: 's1' })], [proxy('p', { session: 's2' })])).toEqual([]);
    // The session an answer assigned (initialize) is on the client record only: no conflict.
    expect(pairsOf([client('c', { session: 's1' })], [proxy('p')])).toEqual(['c=p:timing']);
    // The query string is part of the line, not of the request's shape.
    expect(pairsOf([client('c')], [proxy('p', { httpPath: '/mcp?x=1' })])).toEqual(['c=p:timing']);
  });

  it("takes nginx's 499 for the request a client timed out on", () => {
    const aborted = client('c', { httpStatus: null, timeout: true });
    expect(pairsOf([aborted], [proxy('p', { httpStatus: 499 })])).toEqual(['c=p:timing']);
    expect(pairsOf([client('c', { httpStatus: 200 })], [proxy('p', { httpStatus: 499 })])).toEqual([]);
  });

  it('reads a log of whole seconds (no latency) as dating the request by the second it ended', () => {
    const sent = client('c', { ts: T + 900, latencyMs: 300 });
    // Sent at .900, answered at 1.200: the line says second 1.
    expect(pairsOf([sent], [proxy('p', { ts: T + 1000, latencyMs: null })])).toEqual(['c=p:timing']);
    // A line two seconds later is another request.
    expect(pairsOf([sent], [proxy('p', { ts: T + 3000, latencyMs: null })])).toEqual([]);
  });

  it('pairs one to one, the closest first, in the order the log wrote alike lines', () => {
    const clients = [client('c1', { ts: T + 100 }), client('c2', { ts: T + 400 })];
    const second = [proxy('p1', { ts: T, latencyMs: null }), proxy('p2', { ts: T, latencyMs: null })];
    expect(pairsOf(clients, second)).toEqual(['c1=p1:timing', 'c2=p2:timing']);
    const timed = [proxy('far', { ts: T + 90 }), proxy('near', { ts: T + 101 })];
    expect(pairsOf([clients[0] as JoinFacts], timed)).toEqual(['c1=near:timing']);
  });

  it('gives the same pairs whatever order the records come in', () => {
    const clients = Array.from({ length: 30 }, (_, i) => client(`c${i}`, { ts: T + (i % 7) * 3 }));
    const proxies = Array.from({ length: 30 }, (_, i) => proxy(`p${i}`, { ts: T + (i % 7) * 3 + 1 }));
    const once = pairsOf(clients, proxies);
    expect(once).toHaveLength(30);
    expect(pairsOf([...clients].reverse(), [...proxies].reverse())).toEqual(once);
  });
});
