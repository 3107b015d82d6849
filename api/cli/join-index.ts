import { clientWindow, type JoinFacts, pairRecords, proxyWindow, shapeOf } from '../../shared/request-join.ts';

/**
 * One side's records of the last minutes that no record of the other side has joined yet, for the offline run's
 * pairing (shared/request-join.ts): looked up by request id, correlation and HTTP method and path, so that pairing
 * one record costs its few candidates, never the whole window. Bounded by log time and by count. A record added as
 * `anyServer` is an access-log line nothing named the server of: it may be the request of a record to any server.
 */
export class JoinIndex {
  private readonly byId = new Map<string, JoinFacts>();
  private readonly byKey = new Map<string, Set<string>>();
  private readonly anyServer = new Set<string>();
  /** Every record in the order added, from `head` on: forgetting takes them from the front. */
  private queue: JoinFacts[] = [];
  private head = 0;

  constructor(private readonly maxRecords: number) {}

  add(record: JoinFacts, anyServer = false): void {
    this.byId.set(record.eventId, record);
    if (anyServer) this.anyServer.add(record.eventId);
    for (const key of keysOf(record)) {
      const ids = this.byKey.get(key);
      if (ids === undefined) this.byKey.set(key, new Set([record.eventId]));
      else ids.add(record.eventId);
    }
    this.queue.push(record);
    while (this.byId.size > this.maxRecords) this.remove(this.queue[this.head++] as JoinFacts);
  }

  isAnyServer(record: JoinFacts): boolean {
    return this.anyServer.has(record.eventId);
  }

  /**
   * The records that could be `other`'s partner: those sharing its request id or correlation, at any distance, and
   * those of its method and path inside `window`, on its server unless one of the two names none.
   */
  candidates(other: JoinFacts, window: readonly [number, number], otherAnyServer: boolean): JoinFacts[] {
    const [from, to] = window;
    const found = new Map<string, JoinFacts>();
    for (const key of keysOf(other)) {
      for (const id of this.byKey.get(key) ?? []) {
        const record = this.byId.get(id);
        if (record === undefined || record.eventId === other.eventId) continue;
        const sameServer = otherAnyServer || record.server === other.server || this.anyServer.has(id);
        if (!key.startsWith(ROUTE) || (record.ts >= from && record.ts <= to && sameServer)) found.set(id, record);
      }
    }
    return [...found.values()];
  }

  /** Forgets the records sent before `ts`: no record released from here on can be theirs. */
  forget(ts: number): void {
    while (this.head < this.queue.length && (this.queue[this.head] as JoinFacts).ts < ts) {
      this.remove(this.queue[this.head++] as JoinFacts);
    }
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  remove(record: JoinFacts): void {
    if (this.byId.get(record.eventId) !== record) return;
    this.byId.delete(record.eventId);
    this.anyServer.delete(record.eventId);
    for (const key of keysOf(record)) {
      const ids = this.byKey.get(key);
      ids?.delete(record.eventId);
      if (ids?.size === 0) this.byKey.delete(key);
    }
  }
}

/**
 * The client record a proxy record being released is the request of, taken out of `clients`; undefined when none
 * is. The proxy records still held that could be the same clients' partners compete for them, so that a pair goes
 * to the surest and then closest record as when the store pairs a batch at once, not to whichever line is released
 * first (two alike retries a few milliseconds apart would otherwise swap partners). A line of `anyServer` is paired
 * as if it had been logged under each candidate's server.
 */
export function takePartner(
  proxy: JoinFacts,
  anyServer: boolean,
  clients: JoinIndex,
  heldProxies: JoinIndex,
): JoinFacts | undefined {
  const candidates = clients.candidates(proxy, clientWindow(proxy), anyServer);
  if (candidates.length === 0) return undefined;
  const rivals = new Map<string, JoinFacts>();
  for (const client of candidates) {
    for (const rival of heldProxies.candidates(client, proxyWindow(client), false)) rivals.set(rival.eventId, rival);
  }
  rivals.delete(proxy.eventId);
  // The rivals' own candidates too: a rival better matched elsewhere leaves this line its client.
  const all = new Map(candidates.map((client) => [client.eventId, client]));
  for (const rival of rivals.values()) {
    const any = heldProxies.isAnyServer(rival);
    for (const client of clients.candidates(rival, clientWindow(rival), any)) all.set(client.eventId, client);
  }
  const pool = [...all.values()];
  const servers = [...new Set(pool.map((client) => client.server))];
  // The copies of a line share its event id, so at most one of them is paired.
  const asLogged = (record: JoinFacts, any: boolean) =>
    any ? servers.map((server) => ({ ...record, server })) : [record];
  const proxies = [
    ...asLogged(proxy, anyServer),
    ...[...rivals.values()].flatMap((rival) => asLogged(rival, heldProxies.isAnyServer(rival))),
  ];
  const pair = pairRecords(pool, proxies).find((found) => found.proxy.eventId === proxy.eventId);
  if (pair !== undefined) clients.remove(pair.client);
  return pair?.client;
}

const ROUTE = 'route:';

function keysOf(record: JoinFacts): string[] {
  const keys: string[] = [];
  if (record.requestId !== null) keys.push(`rid:${record.requestId}`);
  if (record.correlation !== null) keys.push(`cor:${record.correlation}`);
  // The request's shape on no server: its HTTP method and path, which a line nothing named shares with its request.
  const route = shapeOf({ ...record, server: '' });
  if (route !== null) keys.push(`${ROUTE}${route}`);
  return keys;
}
