import { bucketStart, HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import type { SqlRunner } from '../runner.ts';
import { storedIdentity } from '../stored-identity.ts';
import { type ColdEvent, coldEventsIn } from './cold-events.ts';

/**
 * Identities' sends among the events packed in cold blocks (db/queries/cold-events.ts): what the reads of sends in
 * db/counters/identities.ts find in the rows, found in the blocks of the identities' servers. A send is a counted
 * request with an identity that is no MRTR continuation (db/counters/identities.ts SENDS); each block is looked into
 * only where its identity column holds one of them. MCP 2026-07-28's input requests stay rows of their own table.
 */

/** The fields a send is told by (isSendOf) and counted by; a block's other columns are not inflated for it. */
const SEND_FIELDS = ['identity', 'counted', 'continuation', 'client', 'ts'] as const;
type Send = Pick<ColdEvent, (typeof SEND_FIELDS)[number]>;

/** A send as the latest one is shown (sendsAt). */
const LATEST_SEND_FIELDS = [...SEND_FIELDS, 'server', 'eventId', 'bucket', 'kind', 'rule', 'rpcMethod'] as const;

/** Whether a cold event is a send of one of `identities`, of `client` when given. */
function isSendOf(identities: ReadonlySet<string>, client?: string): (event: Send) => boolean {
  return (event) =>
    event.identity !== null &&
    identities.has(event.identity) &&
    event.counted === 1 &&
    event.continuation === 0 &&
    (client === undefined || event.client === client);
}

/** The identities by the server each names: a server's blocks are read once for all of its identities. */
function byServer(identities: readonly string[]): Map<string, Set<string>> {
  const servers = new Map<string, Set<string>>();
  for (const identity of identities) {
    const server = storedIdentity(identity)?.server;
    if (server === undefined) continue;
    const named = servers.get(server) ?? new Set<string>();
    named.add(identity);
    servers.set(server, named);
  }
  return servers;
}

/** Every cold send of `identities` over [from, to), of `client` when given, in no particular order. */
export async function coldSends(
  db: SqlRunner,
  identities: readonly string[],
  { from, to, server, client }: { from: number; to: number; server?: string; client?: string },
): Promise<Send[]> {
  const found: Send[] = [];
  for (const [named, wanted] of byServer(identities)) {
    if (server !== undefined && named !== server) continue;
    found.push(
      ...(await coldEventsIn(
        db,
        { server: named, from, to },
        isSendOf(wanted, client),
        { columns: ['identity'], test: (row) => row.identity != null && wanted.has(row.identity) },
        SEND_FIELDS,
      )),
    );
  }
  return found;
}

/** The cold sends at each `[identity, ts]`, of `client` when given: a read of the one hour of each. */
export async function coldSendsAt(
  db: SqlRunner,
  pairs: readonly (readonly [string, number])[],
  client?: string,
): Promise<Pick<ColdEvent, (typeof LATEST_SEND_FIELDS)[number]>[]> {
  const hours = new Map<string, { server: string; hour: number; at: Set<string> }>();
  for (const [identity, ts] of pairs) {
    const server = storedIdentity(identity)?.server;
    if (server === undefined) continue;
    const hour = bucketStart(ts, HOUR_MS);
    const key = `${hour}\u0000${server}`;
    const held = hours.get(key) ?? { server, hour, at: new Set<string>() };
    held.at.add(`${ts}\u0000${identity}`);
    hours.set(key, held);
  }
  const found: Pick<ColdEvent, (typeof LATEST_SEND_FIELDS)[number]>[] = [];
  for (const { server, hour, at } of hours.values()) {
    const identities = new Set([...at].map((key) => key.slice(key.indexOf('\u0000') + 1)));
    const send = isSendOf(identities, client);
    found.push(
      ...(await coldEventsIn(
        db,
        { server, from: hour, to: hour + HOUR_MS },
        (event) => send(event) && at.has(`${event.ts}\u0000${event.identity}`),
        { columns: ['identity'], test: (row) => row.identity != null && identities.has(row.identity) },
        LATEST_SEND_FIELDS,
      )),
    );
  }
  return found;
}
