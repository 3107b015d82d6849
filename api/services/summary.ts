import type { EventFilter } from '../../db/queries/events.ts';
import { countRows } from '../../db/queries/rollups.ts';
import type { BucketCountRow } from '../../db/queries/summary.ts';
import type { SqlRunner } from '../../db/runner.ts';
import { BUCKETS, type Bucket } from '../../shared/classify/types.ts';

export interface Counts {
  total: number;
  /** Requests a correct client would not have sent (the gate's verdicts). */
  avoidable: number;
  buckets: Record<Bucket, number>;
  /** Per bucket, the count of each kind seen. */
  kinds: Partial<Record<Bucket, Record<string, number>>>;
}

export interface Summary {
  range: { from: string | null; to: string | null };
  overall: Counts;
  servers: Record<string, Counts>;
  clients: Record<string, Counts>;
}

export async function summarise(db: SqlRunner, filter: Omit<EventFilter, 'bucket' | 'kind'>): Promise<Summary> {
  return {
    range: {
      from: filter.from === undefined ? null : new Date(filter.from).toISOString(),
      to: filter.to === undefined ? null : new Date(filter.to).toISOString(),
    },
    ...foldCounts(
      (await countRows(db, filter, null, ['server', 'client', 'kind'])).map((row) => ({
        server: row.server,
        client: row.client === '' ? null : row.client,
        bucket: row.bucket,
        kind: row.kind,
        count: row.requests,
        avoidable: row.avoidable,
      })),
    ),
  };
}

/** Folds per-(server, client, bucket, kind) rows into overall, per-server and per-client counts. */
function foldCounts(rows: readonly (BucketCountRow & { avoidable: number })[]): Omit<Summary, 'range'> {
  const overall = emptyCounts();
  const servers: Record<string, Counts> = {};
  const clients: Record<string, Counts> = {};
  for (const row of rows) {
    const bucket = row.bucket as Bucket;
    add(overall, bucket, row);
    servers[row.server] ??= emptyCounts();
    add(servers[row.server] as Counts, bucket, row);
    if (row.client !== null) {
      clients[row.client] ??= emptyCounts();
      add(clients[row.client] as Counts, bucket, row);
    }
  }
  return { overall, servers, clients };
}

function emptyCounts(): Counts {
  const buckets = Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>;
  return { total: 0, avoidable: 0, buckets, kinds: {} };
}

function add(counts: Counts, bucket: Bucket, row: { kind: string; count: number; avoidable: number }): void {
  counts.total += row.count;
  counts.avoidable += row.avoidable;
  counts.buckets[bucket] += row.count;
  const kinds = counts.kinds[bucket] ?? {};
  kinds[row.kind] = (kinds[row.kind] ?? 0) + row.count;
  counts.kinds[bucket] = kinds;
}
