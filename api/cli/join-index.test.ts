import { describe, expect, it } from 'vitest';
import type { JoinFacts } from '../../shared/request-join.ts';
import { JoinIndex, takePartner } from './join-index.ts';

const T0 = Date.parse('2026-12-02T02:43:01.000Z');

function record(source: JoinFacts['source'], eventId: string, ms: number, more: Partial<JoinFacts> = {}): JoinFacts {
  return {
    eventId,
    source,
    server: 'release-desk',
    ts: T0 + ms,
    latencyMs: 1,
    session: null,
    httpMethod: 'POST',
    httpPath: '/offline/mcp',
    httpStatus: 502,
    timeout: false,
    requestId: null,
    correlation: null,
    order: ms,
    ...more,
  };
}

/** Releases the proxy records in time order, as the offline run does, each against the ones still held. */
function releaseAll(clients: JoinFacts[], proxies: JoinFacts[], anyServer = false): Record<string, string | undefined> {
  const unpaired = new JoinIndex(1000);
  const held = new JoinIndex(1000);
  for (const client of clients) unpaired.add(client);
  for (const proxy of proxies) held.add(proxy, anyServer);
  const partners: Record<string, string | undefined> = {};
  for (const proxy of [...proxies].sort((a, b) => a.ts - b.ts)) {
    held.remove(proxy);
    partners[proxy.eventId] = takePartner(proxy, anyServer, unpaired, held)?.eventId;
  }
  return partners;
}

describe('pairing proxy lines as they are released', () => {
  it('gives two alike retries 2 ms apart their own lines, not the first line the closer request', () => {
    // The recorded case (mcp-python, upstream-down-003/004): the client logged .636 and .643, nginx .641 and .643.
    const clients = [record('client', 'c3', 636), record('client', 'c4', 643)];
    const proxies = [record('proxy', 'p3', 641), record('proxy', 'p4', 643)];
    expect(releaseAll(clients, proxies)).toEqual({ p3: 'c3', p4: 'c4' });
  });

  it('takes the closer record when no held line is its better match', () => {
    const clients = [record('client', 'c1', 0), record('client', 'c2', 400)];
    expect(releaseAll(clients, [record('proxy', 'p1', 390)])).toEqual({ p1: 'c2' });
  });

  it("names a line no one named by its request's server, among records to several servers", () => {
    const clients = [
      record('client', 'desk', 0, { server: 'release-desk', httpPath: '/mcp' }),
      record('client', 'notes', 2, { server: 'atlas-notes', httpPath: '/mcp' }),
    ];
    const proxies = [
      record('proxy', 'p-desk', 1, { server: 'unknown', httpPath: '/mcp' }),
      record('proxy', 'p-notes', 2, { server: 'unknown', httpPath: '/mcp' }),
    ];
    expect(releaseAll(clients, proxies, true)).toEqual({ 'p-desk': 'desk', 'p-notes': 'notes' });
    // A line that names its server never pairs with a record to another by shape and time.
    expect(releaseAll([clients[1] as JoinFacts], [record('proxy', 'named', 2, { httpPath: '/mcp' })])).toEqual({
      named: undefined,
    });
  });

  it('pairs every line of a burst of alike requests, one record each', () => {
    const clients = Array.from({ length: 12 }, (_, i) => record('client', `c${i}`, i * 3));
    const proxies = Array.from({ length: 12 }, (_, i) => record('proxy', `p${i}`, i * 3 + 1));
    const partners = releaseAll(clients, proxies);
    expect(Object.values(partners).sort()).toEqual(clients.map((c) => c.eventId).sort());
    expect(partners).toEqual(Object.fromEntries(proxies.map((p, i) => [p.eventId, `c${i}`])));
  });
});
