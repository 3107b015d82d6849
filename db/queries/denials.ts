import { type SQL, sql } from 'drizzle-orm';
import { type DenialEventRef, isSessionless, PROBE_METHOD } from '../../shared/analysis/denials.ts';
import type { SqlRunner } from '../runner.ts';
import { identityText } from '../stored-identity.ts';
import { type ColdEvent, coldBlockHeads, coldEventsIn } from './cold-events.ts';
import { allPerServer, rowsTable } from './lists.ts';

/** A window of the decision store's audit (db/queries/denial-audit.ts keeps it). */
export interface DenialScope {
  from: number;
  to: number;
  server?: string;
  client?: string;
}

/** A stored denial that did not hold; MCP 2026-07-28's "in between" is asked of it by the reader (api/services). */
export interface BreachRow {
  client: string;
  server: string;
  identity: string;
  rpcMethod: string | null;
  newSession: boolean | null;
  refusal: DenialEventRef;
  answer: DenialEventRef;
}

/**
 * The denials that did not hold whose later answer falls in the window, oldest first; with `newest`, only that many
 * of the latest (a day at 10M events can hold a hundred thousand, each with two event references as JSON).
 */
export async function breachesIn(db: SqlRunner, scope: DenialScope, newest?: number): Promise<BreachRow[]> {
  const latest = newest === undefined ? sql`` : sql` ORDER BY answer_ts DESC, answer_id DESC LIMIT ${newest}`;
  const rows = await db.all<Omit<BreachRow, 'newSession' | 'refusal' | 'answer'> & Record<string, unknown>>(
    sql`SELECT client, server, identity, "rpcMethod", "newSession", refusal, answer FROM (
      SELECT client, server, ${identityText(db)} AS identity, rpc_method AS "rpcMethod", new_session AS "newSession",
        refusal, answer, answer_ts, answer_id FROM denial_breach
      WHERE answer_ts >= ${scope.from} AND answer_ts < ${scope.to}${narrowedTo(scope)}${latest}) AS found
    ORDER BY answer_ts, answer_id`,
  );
  return rows.map((row) => {
    const refusal = JSON.parse(String(row.refusal)) as DenialEventRef;
    return {
      client: row.client,
      server: row.server,
      identity: row.identity,
      rpcMethod: row.rpcMethod,
      // Stored as 0 for sessionless traffic, where the question does not apply.
      newSession: isSessionless(refusal) ? null : Number(row.newSession) === 1,
      refusal,
      answer: JSON.parse(String(row.answer)) as DenialEventRef,
    };
  });
}

/** The conditions that narrow a window of the audit's tables to its server and client. */
export function narrowedTo({ server, client }: DenialScope): SQL {
  const server_ = server === undefined ? sql`` : sql` AND server = ${server}`;
  const client_ = client === undefined ? sql`` : sql` AND client = ${client}`;
  return sql`${server_}${client_}`;
}

/** A client's span of traffic to a server: strictly after `after`, strictly before `before` (epoch ms). */
export interface PairSpan {
  client: string;
  server: string;
  after: number;
  before: number;
}

/**
 * Which of `spans` (by place) hold a counted `server/discover` probe of their client to their server: one seek each
 * in the client's index (client, ts, server).
 */
export async function probedIn(db: SqlRunner, spans: readonly PairSpan[]): Promise<Set<number>> {
  if (spans.length === 0) return new Set();
  const probed = (ofSpans: readonly (PairSpan & { place: number })[], server: SQL) => {
    const table = rowsTable(
      db,
      [
        ['place', 'integer'],
        ['client', 'text'],
        ['server', 'text'],
        ['after', 'bigint'],
        ['before', 'bigint'],
      ],
      ofSpans.map((span) => [span.place, span.client, span.server, span.after, span.before]),
    );
    return sql`SELECT t.place AS place FROM ${table} AS t WHERE EXISTS (
      SELECT 1 FROM events AS e WHERE e.client = t.client AND e.ts > t.after AND e.ts < t.before
        AND e.server = ${server} AND e.rpc_method = ${PROBE_METHOD} AND e.counted = 1)`;
  };
  const placed = spans.map((span, place) => ({ ...span, place }));
  // On PostgreSQL a leg per server, naming it (allPerServer): Citus refuses the EXISTS over a table function.
  const rows =
    db.dialect === 'sqlite'
      ? await db.all<{ place: number }>(probed(placed, sql`t.server`))
      : await allPerServer<(typeof placed)[number], { place: number }>(db, placed, (server, ofServer) =>
          probed(ofServer, sql`${server}`),
        );
  const probedSpans = new Set(rows.map((row) => Number(row.place)));
  const unprobed = placed.filter(({ place }) => !probedSpans.has(place));
  // Most stores have no block in the spans' time: one look per server says so.
  const packedServers = new Set<string>();
  for (const server of new Set(unprobed.map((span) => span.server))) {
    const ofServer = unprobed.filter((span) => span.server === server);
    const from = Math.min(...ofServer.map((span) => span.after));
    const to = Math.max(...ofServer.map((span) => span.before));
    if ((await coldBlockHeads(db, { server, from, to }, 1)).length > 0) packedServers.add(server);
  }
  for (const { place, ...span } of unprobed) {
    if (packedServers.has(span.server) && (await probedWhilePacked(db, span))) probedSpans.add(place);
  }
  return probedSpans;
}

/** Whether the span's events packed in cold blocks (db/queries/cold-events.ts) hold the probe. */
async function probedWhilePacked(db: SqlRunner, span: PairSpan): Promise<boolean> {
  const probe = (event: Partial<ColdEvent>) =>
    event.client === span.client && event.rpcMethod === PROBE_METHOD && event.ts !== undefined && event.ts > span.after;
  const found = await coldEventsIn(
    db,
    { server: span.server, from: span.after + 1, to: span.before },
    (event) => probe(event) && event.counted === 1,
    { columns: ['client', 'rpcMethod', 'ts'], test: probe },
    ['client', 'rpcMethod', 'ts', 'counted'],
  );
  return found.length > 0;
}
