import { type CountRow, countRows, type RangeFilter } from '../../db/counters/rollups.ts';
import type { SqlRunner } from '../../db/runner.ts';
import { BUCKETS, type Bucket } from '../../shared/classify/types.ts';
import { type NameRecord, nameRecord } from '../../shared/name-record.ts';
import { keptData } from './retention.ts';

export interface Counts {
  total: number;
  /** Requests a correct client would not have sent (the gate's verdicts). */
  avoidable: number;
  buckets: Record<Bucket, number>;
  /** Per bucket, the count of each kind seen (kinds are names: an override may call one `constructor`). */
  kinds: Partial<Record<Bucket, NameRecord<number>>>;
}

export interface Summary {
  range: { from: string | null; to: string | null };
  overall: Counts;
  /** Keyed by names from logs: null-prototype records (shared/name-record.ts), so `__proto__` is just a key. */
  servers: NameRecord<Counts>;
  clients: NameRecord<Counts>;
}

/** The summary of a range as asked (all time when open), its part before retention's horizon read from the hours. */
export async function rangeSummary(db: SqlRunner, range: Omit<RangeFilter, 'eventsFrom'>): Promise<Summary> {
  const { eventsFrom, rowsFrom } = await keptData(db);
  return summarise(db, { ...range, eventsFrom, rowsFrom });
}

export async function summarise(db: SqlRunner, filter: RangeFilter): Promise<Summary> {
  // Per server and per client from their own families, not from a row per (server, client): a day of a meshed
  // federation is thousands of pairs an hour, but tens of clients.
  const [byServer, byClient] = await Promise.all([
    countRows(db, filter, null, ['server', 'kind']),
    countRows(db, filter, null, ['client', 'kind']),
  ]);
  return summaryOf(filter, byServer, byClient);
}

/**
 * A server's summary, and the counts of what no named client sent it (its own requests, and proxy lines without a
 * client), from one read: its rows per client are its rows per server as well. The server's page made three reads of
 * the counts for these, one after another on SQLite's one reader.
 */
export async function serverSummary(
  db: SqlRunner,
  filter: RangeFilter & { server: string },
): Promise<{ summary: Summary; unnamed: Counts }> {
  const byClient = await countRows(db, filter, null, ['client', 'kind']);
  const unnamed = emptyCounts();
  for (const row of byClient) if (row.client === '') add(unnamed, row);
  const byServer = byClient.map((row) => ({ ...row, server: filter.server }));
  return { summary: summaryOf(filter, byServer, byClient), unnamed };
}

function summaryOf(filter: RangeFilter, byServer: readonly CountRow[], byClient: readonly CountRow[]): Summary {
  const overall = emptyCounts();
  const servers = nameRecord<Counts>();
  for (const row of byServer) {
    add(overall, row);
    servers[row.server] ??= emptyCounts();
    add(servers[row.server] as Counts, row);
  }
  const clients = nameRecord<Counts>();
  for (const row of byClient) {
    if (row.client === '') continue;
    clients[row.client] ??= emptyCounts();
    add(clients[row.client] as Counts, row);
  }
  return {
    range: {
      from: filter.from === undefined ? null : new Date(filter.from).toISOString(),
      to: filter.to === undefined ? null : new Date(filter.to).toISOString(),
    },
    overall,
    servers,
    clients,
  };
}

function emptyCounts(): Counts {
  const buckets = Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>;
  return { total: 0, avoidable: 0, buckets, kinds: {} };
}

function add(counts: Counts, row: CountRow): void {
  const bucket = row.bucket as Bucket;
  counts.total += row.requests;
  counts.avoidable += row.avoidable;
  counts.buckets[bucket] += row.requests;
  const kinds = counts.kinds[bucket] ?? nameRecord<number>();
  kinds[row.kind] = (kinds[row.kind] ?? 0) + row.requests;
  counts.kinds[bucket] = kinds;
}
