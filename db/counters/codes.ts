import { type SQL, sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { CODE_COUNTS, METHOD_FAILURE_COUNTS } from './families.ts';
import { rangeUnion, sumRange, type Window } from './family.ts';

export interface CodeCountRow {
  /** JSON-RPC error code of the response; null when the answer carried none. */
  rpcCode: number | null;
  /** HTTP status; null when the observer saw none (a timeout, a stdio transport). */
  httpStatus: number | null;
  bucket: string;
  kind: string;
  requests: number;
}

type ServerWindow = Window & { server: string; from: number; to: number };

/**
 * Counted failures of one server over [from, to) per code pair and classification, most frequent first, exactly:
 * whole hours and minutes from the counts kept at ingest, the sub-minute edges from the events. Nulls are ordered as
 * 0 (no real code) so that both stores give one order.
 */
export async function codeCounts(db: SqlRunner, scope: ServerWindow): Promise<CodeCountRow[]> {
  const union = rangeUnion(CODE_COUNTS, {
    window: scope,
    step: null,
    where: (key) => [sql`${key('server')} = ${scope.server}`],
  });
  if (union === null) return [];
  const rpcCode = sql`CAST(nullif(rpc_code, '') AS bigint)`;
  const httpStatus = sql`CAST(nullif(http_status, '') AS integer)`;
  return db.all<CodeCountRow>(sql`SELECT ${rpcCode} AS "rpcCode", ${httpStatus} AS "httpStatus", bucket, kind,
      sum(requests) AS requests
    FROM (${union}) AS parts
    GROUP BY rpc_code, http_status, bucket, kind HAVING sum(requests) <> 0
    ORDER BY sum(requests) DESC, bucket, kind, coalesce(${rpcCode}, 0), coalesce(${httpStatus}, 0)`);
}

export interface MethodFailureRow {
  /** The JSON-RPC method, '' for records without one (an HTTP-only line). */
  method: string;
  failures: number;
}

/** Counted failures of one server over [from, to) per JSON-RPC method, most first, exactly (family.ts sumRange). */
export async function methodFailures(db: SqlRunner, scope: ServerWindow): Promise<MethodFailureRow[]> {
  const rows = await sumRange<MethodFailureRow>(db, METHOD_FAILURE_COUNTS, {
    window: scope,
    step: null,
    where: (key) => [sql`${key('server')} = ${scope.server}`],
    keep: ['method'],
  });
  return rows
    .map(({ method, failures }) => ({ method, failures }))
    .sort((a, b) => b.failures - a.failures || (a.method < b.method ? -1 : a.method > b.method ? 1 : 0));
}

/**
 * The same counts grouped from the events (through the (server, ts) index): what `codeCounts` must equal, and what
 * the bench compares it with.
 */
export async function rawCodeCounts(db: SqlRunner, scope: ServerWindow): Promise<CodeCountRow[]> {
  return db.all<CodeCountRow>(sql`SELECT rpc_code AS "rpcCode", http_status AS "httpStatus", bucket, kind,
      count(*) AS requests
    FROM events WHERE ${failuresOf(scope)}
    GROUP BY rpc_code, http_status, bucket, kind
    ORDER BY count(*) DESC, bucket, kind, coalesce(rpc_code, 0), coalesce(http_status, 0)`);
}

function failuresOf({ server, from, to }: ServerWindow): SQL {
  return sql`server = ${server} AND ts >= ${from} AND ts < ${to} AND counted = 1 AND bucket <> 'ok' AND bucket <> 'pending'
    AND bucket <> 'unknown'`;
}
