import { clientWindow, type JoinFacts, pairRecords, shapeOf } from '../../shared/request-join.ts';

/**
 * The client records of the last minutes that no proxy record has joined yet, for the offline run's pairing
 * (shared/request-join.ts): looked up by request id, correlation and HTTP method and path, so that pairing one proxy
 * record costs its few candidates, never the whole window. Bounded by log time and by count.
 */
export class UnpairedClients {
  private readonly byId = new Map<string, JoinFacts>();
  private readonly byKey = new Map<string, Set<string>>();
  /** Every record in the order added, from `head` on: forgetting takes them from the front. */
  private queue: JoinFacts[] = [];
  private head = 0;

  constructor(private readonly maxRecords: number) {}

  add(record: JoinFacts): void {
    this.byId.set(record.eventId, record);
    for (const key of keysOf(record)) {
      const ids = this.byKey.get(key);
      if (ids === undefined) this.byKey.set(key, new Set([record.eventId]));
      else ids.add(record.eventId);
    }
    this.queue.push(record);
    while (this.byId.size > this.maxRecords) this.drop(this.queue[this.head++] as JoinFacts);
  }

  /**
   * The client record this proxy record is, if one is still unpaired; it is taken out of the window. A proxy record
   * of `anyServer` is a line nothing named the server of: it may be the request of a client record to any server,
   * and is paired as if it had been logged under each candidate's server (the surest, then closest, wins).
   */
  take(proxy: JoinFacts, anyServer = false): JoinFacts | undefined {
    const [from, to] = clientWindow(proxy);
    const candidates = new Map<string, JoinFacts>();
    for (const key of keysOf(proxy)) {
      for (const id of this.byKey.get(key) ?? []) {
        const record = this.byId.get(id);
        if (record === undefined) continue;
        // A shared key joins at any distance; a route only inside the window, and on the proxy's server if it has one.
        const near = record.ts >= from && record.ts <= to && (anyServer || record.server === proxy.server);
        if (!key.startsWith(ROUTE) || near) candidates.set(id, record);
      }
    }
    const clients = [...candidates.values()];
    const proxies = anyServer
      ? [...new Set(clients.map((c) => c.server))].map((server) => ({ ...proxy, server }))
      : [proxy];
    // The copies share the proxy's event id, so at most one of them is paired.
    const [pair] = pairRecords(clients, proxies);
    if (pair !== undefined) this.drop(pair.client);
    return pair?.client;
  }

  /** Forgets the records sent before `ts`: no proxy record released from here on can be theirs. */
  forget(ts: number): void {
    while (this.head < this.queue.length && (this.queue[this.head] as JoinFacts).ts < ts) {
      this.drop(this.queue[this.head++] as JoinFacts);
    }
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  private drop(record: JoinFacts): void {
    if (this.byId.get(record.eventId) !== record) return;
    this.byId.delete(record.eventId);
    for (const key of keysOf(record)) {
      const ids = this.byKey.get(key);
      ids?.delete(record.eventId);
      if (ids?.size === 0) this.byKey.delete(key);
    }
  }
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
