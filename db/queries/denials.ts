import { type SQL, sql } from 'drizzle-orm';
import type { DenialEventRef } from '../../shared/analysis/denials.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import type { SqlRunner } from '../runner.ts';
import { identityText } from '../stored-identity.ts';

/** A window of the decision store's audit (db/counters/denials.ts keeps it). */
export interface DenialScope {
  from: number;
  to: number;
  server?: string;
  client?: string;
}

export interface BreachRow {
  client: string;
  server: string;
  identity: string;
  rpcMethod: string | null;
  newSession: boolean;
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
      WHERE answer_ts >= ${scope.from} AND answer_ts < ${scope.to}${narrowed(scope)}${latest}) AS found
    ORDER BY answer_ts, answer_id`,
  );
  return rows.map((row) => ({
    client: row.client,
    server: row.server,
    identity: row.identity,
    rpcMethod: row.rpcMethod,
    newSession: Number(row.newSession) === 1,
    refusal: JSON.parse(String(row.refusal)) as DenialEventRef,
    answer: JSON.parse(String(row.answer)) as DenialEventRef,
  }));
}

/** The denials that did not hold whose later answer falls in the window, counted per client and server. */
export async function breachCountsIn(
  db: SqlRunner,
  scope: DenialScope,
): Promise<{ client: string; server: string; count: number }[]> {
  const rows = await db.all<{ client: string; server: string; count: number | string }>(sql`SELECT client, server,
      count(*) AS count FROM denial_breach
    WHERE answer_ts >= ${scope.from} AND answer_ts < ${scope.to}${narrowed(scope)}
    GROUP BY client, server`);
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}

/** Re-presented refusals replayed per client, in the hours that start in the window (the counts are per hour). */
export async function replayedPerClient(db: SqlRunner, scope: DenialScope): Promise<Map<string, number>> {
  const rows = await db.all<{ client: string; replayed: number | string }>(sql`SELECT client,
      sum(replayed) AS replayed FROM denial_replay_hour
    WHERE start >= ${scope.from - (scope.from % HOUR_MS)} AND start < ${scope.to}${narrowed(scope)}
    GROUP BY client ORDER BY client`);
  return new Map(rows.map((row) => [row.client, Number(row.replayed)]));
}

function narrowed({ server, client }: DenialScope): SQL {
  const server_ = server === undefined ? sql`` : sql` AND server = ${server}`;
  const client_ = client === undefined ? sql`` : sql` AND client = ${client}`;
  return sql`${server_}${client_}`;
}
