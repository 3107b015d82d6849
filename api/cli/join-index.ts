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

/** How many of a line's candidates are weighed against the held lines before it takes its best one regardless. */
const TRIES = 4;

/**
 * The client record a proxy record being released is the request of, taken out of `clients`; undefined when none
 * is. Its candidates are tried surest and closest first (shared/request-join.ts), and one is passed over while a line
 * still held and it are each other's best match: that pair is what the store, pairing a batch at once, would make,
 * and taking the record first would swap the partners of two alike retries a few milliseconds apart. After TRIES
 * candidates the best one left is taken, so a burst of alike requests costs a bounded number of lookups per line.
 * A line of `anyServer` is paired as if it had been logged under each candidate's server.
 */
export function takePartner(
  proxy: JoinFacts,
  anyServer: boolean,
  clients: JoinIndex,
  heldProxies: JoinIndex,
): JoinFacts | undefined {
  let candidates = clients.candidates(proxy, clientWindow(proxy), anyServer);
  for (let tried = 0; candidates.length > 0; tried++) {
    const best = bestClient(proxy, anyServer, candidates);
    if (best === undefined) return undefined;
    if (tried >= TRIES || !promisedElsewhere(best, { proxy, anyServer }, clients, heldProxies)) {
      clients.remove(best);
      return best;
    }
    candidates = candidates.filter((client) => client !== best);
  }
  return undefined;
}

/** The client record among `clients` that `proxy` pairs with first, if any. */
function bestClient(proxy: JoinFacts, anyServer: boolean, clients: readonly JoinFacts[]): JoinFacts | undefined {
  return pairRecords(clients, asLogged(proxy, anyServer, clients))[0]?.client;
}

/** Whether a held proxy record other than `proxy` is `client`'s best match, and `client` that record's. */
function promisedElsewhere(
  client: JoinFacts,
  released: { proxy: JoinFacts; anyServer: boolean },
  clients: JoinIndex,
  held: JoinIndex,
): boolean {
  const { proxy } = released;
  const rivals = held.candidates(client, proxyWindow(client), false).filter((r) => r.eventId !== proxy.eventId);
  if (rivals.length === 0) return false;
  const lines = [
    ...asLogged(proxy, released.anyServer, [client]),
    ...rivals.flatMap((rival) => asLogged(rival, held.isAnyServer(rival), [client])),
  ];
  const preferred = pairRecords([client], lines)[0]?.proxy;
  const rival = rivals.find((r) => r.eventId === preferred?.eventId);
  if (rival === undefined) return false;
  const any = held.isAnyServer(rival);
  return bestClient(rival, any, clients.candidates(rival, clientWindow(rival), any))?.eventId === client.eventId;
}

/**
 * A line as pairing sees it: itself, or for a line nothing named a server for, a copy under each server of the
 * records it is weighed against (the copies share its event id, so at most one of them is paired).
 */
function asLogged(line: JoinFacts, anyServer: boolean, clients: readonly JoinFacts[]): JoinFacts[] {
  if (!anyServer) return [line];
  return [...new Set(clients.map((client) => client.server))].map((server) => ({ ...line, server }));
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
