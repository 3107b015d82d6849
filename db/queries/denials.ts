import { type SQL, sql } from 'drizzle-orm';
import { type DenialEventRef, isSessionless } from '../../shared/analysis/denials.ts';
import type { SqlRunner } from '../runner.ts';
import { identityText } from '../stored-identity.ts';

/** A window of the decision store's audit (db/queries/denial-audit.ts keeps it). */
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
