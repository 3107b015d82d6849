import { sql } from 'drizzle-orm';
import { SENDER } from '../counters/families.ts';
import type { SqlRunner } from '../runner.ts';
import { type EventFilter, filterConditions, whereClause } from './events.ts';

export interface BucketCountRow {
  server: string;
  client: string | null;
  bucket: string;
  kind: string;
  count: number;
}

/**
 * Counted requests per server, client, bucket and kind, aggregated from the events themselves. The dashboard reads
 * the rollups instead (db/counters/rollups.ts countRows); this is the reference they are checked and benchmarked
 * against. A proxy record shadowed by the client's record of the same request is left out.
 */
export async function rawBucketCounts(db: SqlRunner, filter: EventFilter): Promise<BucketCountRow[]> {
  const conditions = [sql`counted = 1`, ...filterConditions(filter)];
  // Filed under the sender, as the rollups file them.
  return db.all<BucketCountRow>(sql`SELECT server, ${SENDER} AS client, bucket, kind, count(*) AS count
    FROM events ${whereClause(conditions)} GROUP BY 1, 2, 3, 4`);
}
