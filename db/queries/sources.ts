import { sql } from 'drizzle-orm';
import { SOURCE_SAMPLE } from '../../shared/source-formats.ts';
import type { SqlRunner } from '../runner.ts';

/** One log format's records of a server in a window, and how many of them carry a frame. */
export interface SourceCountRow {
  /** The format the records were read from (`events.source_format`); null for native NDJSON. */
  format: string | null;
  records: number;
  /** Records with a request or an answer frame. */
  withFrames: number;
  /** Records stored before the store kept whether they carry frames (migration record_frames). */
  framesUnknown: number;
}

/**
 * A server's records in the window by the format they were read from, the newest SOURCE_SAMPLE of them (through
 * events_server_ts_idx): every stored record, server events included, as they are what the format gave.
 */
export async function sourceCounts(
  db: SqlRunner,
  scope: { server: string; from: number; to: number },
): Promise<SourceCountRow[]> {
  const rows = await db.all<SourceCountRow>(sql`SELECT source_format AS "format", count(*) AS records,
      sum(CASE WHEN frames > 0 THEN 1 ELSE 0 END) AS "withFrames",
      sum(CASE WHEN frames IS NULL THEN 1 ELSE 0 END) AS "framesUnknown"
    FROM (SELECT source_format, frames FROM events
      WHERE server = ${scope.server} AND ts >= ${scope.from} AND ts < ${scope.to}
      ORDER BY ts DESC LIMIT ${SOURCE_SAMPLE}) AS recent
    GROUP BY source_format ORDER BY count(*) DESC`);
  return rows.map((row) => ({
    format: row.format,
    records: Number(row.records),
    withFrames: Number(row.withFrames),
    framesUnknown: Number(row.framesUnknown),
  }));
}
