import { type SQL, sql } from 'drizzle-orm';
import { addCounts, type RowsColumn } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import { COUNTER_FAMILIES } from './levels.ts';
import { segments } from './rollups.ts';

export interface CodeCountRow {
  /** JSON-RPC error code of the response; null when the answer carried none. */
  rpcCode: number | null;
  /** HTTP status; null when the observer saw none (a timeout, a stdio transport). */
  httpStatus: number | null;
  bucket: string;
  kind: string;
  requests: number;
}

/** A change to the counted failures of one minute, server, classification and code pair (code_minute, code_hour). */
export interface CodeDelta {
  minute: number;
  server: string;
  bucket: string;
  kind: string;
  rpcCode: number | null;
  httpStatus: number | null;
  requests: number;
}

const CODE_LEVELS = COUNTER_FAMILIES.codes;

const CODE_KEYS: readonly RowsColumn[] = [
  ['server', 'text'],
  ['start', 'bigint'],
  ['bucket', 'text'],
  ['kind', 'text'],
  ['rpc_code', 'text'],
  ['http_status', 'text'],
];

/** Adds the deltas to the failure counts of their minute and of their hour. */
export async function applyCodeDeltas(db: SqlRunner, deltas: readonly CodeDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await Promise.all(
    CODE_LEVELS.map(({ table, size }) =>
      addCounts(
        db,
        table,
        CODE_KEYS,
        ['requests'],
        deltas.map((d) => [
          d.server,
          d.minute - (d.minute % size),
          d.bucket,
          d.kind,
          d.rpcCode === null ? '' : String(d.rpcCode),
          d.httpStatus === null ? '' : String(d.httpStatus),
          d.requests,
        ]),
      ),
    ),
  );
}

type ServerWindow = { server: string; from: number; to: number; eventsFrom: number | null };

/**
 * Counted failures of one server over [from, to) per code pair and classification, most frequent first, exactly:
 * whole hours and minutes from the counts kept at ingest, the sub-minute edges from the events. Nulls are ordered as
 * 0 (no real code) so that both stores give one order.
 */
export async function codeCounts(db: SqlRunner, scope: ServerWindow): Promise<CodeCountRow[]> {
  const parts = segments(scope, CODE_LEVELS);
  const selects: SQL[] = parts.rollups.map(
    ([table, from, to]) => sql`SELECT bucket, kind, rpc_code, http_status, requests FROM ${sql.raw(table)}
      WHERE server = ${scope.server} AND start >= ${from} AND start < ${to}`,
  );
  for (const [from, to] of parts.raw) {
    selects.push(sql`SELECT bucket, kind, coalesce(CAST(rpc_code AS text), '') AS rpc_code,
        coalesce(CAST(http_status AS text), '') AS http_status, 1 AS requests
      FROM events WHERE ${failuresOf({ ...scope, from, to })}`);
  }
  const rpcCode = sql`CAST(nullif(rpc_code, '') AS bigint)`;
  const httpStatus = sql`CAST(nullif(http_status, '') AS integer)`;
  return db.all<CodeCountRow>(sql`SELECT ${rpcCode} AS "rpcCode", ${httpStatus} AS "httpStatus", bucket, kind,
      sum(requests) AS requests
    FROM (${sql.join(selects, sql` UNION ALL `)}) AS parts
    GROUP BY rpc_code, http_status, bucket, kind HAVING sum(requests) <> 0
    ORDER BY sum(requests) DESC, bucket, kind, coalesce(${rpcCode}, 0), coalesce(${httpStatus}, 0)`);
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
