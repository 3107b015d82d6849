import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';

export interface FailedEventRow {
  seq: number;
  body: string;
  bucket: string;
  kind: string;
  rule: string;
  evidence: string;
}

/** One page of a server's failed events, in arrival order (the partial index events_failed_idx serves it). */
export async function failedEventsPage(
  db: SqlRunner,
  server: string,
  afterSeq: number,
  limit: number,
): Promise<FailedEventRow[]> {
  return db.all<FailedEventRow>(sql`SELECT seq, body, bucket, kind, rule, evidence FROM events
    WHERE server = ${server} AND bucket <> 'ok' AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`);
}

export interface Reclassified {
  seq: number;
  bucket: string;
  kind: string;
  rule: string;
  evidence: string;
}

export async function updateClassification(db: SqlRunner, row: Reclassified): Promise<void> {
  await db.run(sql`UPDATE events SET bucket = ${row.bucket}, kind = ${row.kind}, rule = ${row.rule},
    evidence = ${row.evidence} WHERE seq = ${row.seq}`);
}

/**
 * A proxy's record of a request that a client also logged is kept but not counted: the client's view wins.
 * Runs after each batch over the correlation keys the batch brought, whichever side arrived first.
 */
export async function shadowProxyDuplicates(db: SqlRunner, correlations: readonly string[]): Promise<void> {
  for (let start = 0; start < correlations.length; start += 500) {
    const list = sql.join(
      correlations.slice(start, start + 500).map((key) => sql`${key}`),
      sql`, `,
    );
    await db.run(sql`UPDATE events SET counted = 0
      WHERE source = 'proxy' AND counted = 1 AND correlation IN (${list})
        AND EXISTS (SELECT 1 FROM events c WHERE c.correlation = events.correlation AND c.source = 'client')`);
  }
}
