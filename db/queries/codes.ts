import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';

export interface CodeCountRow {
  /** JSON-RPC error code of the response; null when the answer carried none. */
  rpcCode: number | null;
  /** HTTP status; null when the observer saw none (a timeout, a stdio transport). */
  httpStatus: number | null;
  bucket: string;
  kind: string;
  requests: number;
}

/**
 * Counted failures of one server over [from, to) per code pair and classification, most frequent first. The rollups
 * keep no codes, so this reads the events through the (server, ts) index: one server's window, never the whole table.
 * Nulls are ordered as 0 (no real code) so that both stores give one order.
 */
export async function codeCounts(
  db: SqlRunner,
  scope: { server: string; from: number; to: number },
): Promise<CodeCountRow[]> {
  return db.all<CodeCountRow>(sql`SELECT rpc_code AS "rpcCode", http_status AS "httpStatus", bucket, kind,
      count(*) AS requests
    FROM events
    WHERE server = ${scope.server} AND ts >= ${scope.from} AND ts < ${scope.to} AND counted = 1 AND bucket <> 'ok'
    GROUP BY rpc_code, http_status, bucket, kind
    ORDER BY count(*) DESC, bucket, kind, coalesce(rpc_code, 0), coalesce(http_status, 0)`);
}
