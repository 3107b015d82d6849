import { sql } from 'drizzle-orm';
import { addCounts } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import type { RollupDelta } from './rollups.ts';

/** A table of all-time totals (db/schema/totals.ts): its key columns and its count columns, in the order used here. */
export interface TotalsTable {
  table: string;
  keys: readonly string[];
  /** Pairs of `_counted` and `_withdrawn`. */
  counts: readonly string[];
}

export const REQUEST_TOTALS: TotalsTable = {
  table: 'total_requests',
  keys: ['server', 'bucket', 'kind'],
  counts: ['requests_counted', 'requests_withdrawn'],
};

export const AVOIDABLE_TOTALS: TotalsTable = {
  table: 'total_avoidable',
  keys: ['server', 'client'],
  counts: ['avoidable_counted', 'avoidable_withdrawn'],
};

/**
 * Adds the deltas the rollups take to the all-time totals. Each key's deltas are summed first, then each net change
 * goes to `counted` when it grows and to `withdrawn` when it shrinks: a record counted and taken out again within one
 * transaction was never seen counted, and is in neither.
 */
export async function applyTotalDeltas(db: SqlRunner, deltas: readonly RollupDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await Promise.all([
    addTotals(
      db,
      REQUEST_TOTALS,
      deltas,
      (d) => [d.server, d.bucket, d.kind],
      (d) => [d.requests],
    ),
    // The sender's client, as the rollups file it: '' for a request the server sent.
    addTotals(
      db,
      AVOIDABLE_TOTALS,
      deltas,
      (d) => [d.server, d.client ?? ''],
      (d) => [d.avoidable],
    ),
  ]);
}

function addTotals(
  db: SqlRunner,
  of: TotalsTable,
  deltas: readonly RollupDelta[],
  keyOf: (delta: RollupDelta) => string[],
  changesOf: (delta: RollupDelta) => number[],
): Promise<void> {
  const nets = new Map<string, { key: string[]; changes: number[] }>();
  for (const delta of deltas) {
    const key = keyOf(delta);
    // Names never hold NUL (the event schema rejects it), so NUL joins a key unambiguously.
    const id = key.join('\u0000');
    const changes = changesOf(delta);
    const net = nets.get(id);
    if (net === undefined) nets.set(id, { key, changes });
    else net.changes = net.changes.map((sum, i) => sum + (changes[i] ?? 0));
  }
  const rows = [...nets.values()].map(({ key, changes }) => [
    ...key,
    ...changes.flatMap((net) => [Math.max(net, 0), Math.max(-net, 0)]),
  ]);
  return addCounts(
    db,
    of.table,
    of.keys.map((key) => [key, 'text'] as const),
    of.counts,
    rows,
  );
}

/** One row of totals: its key, then its counts, in the table's order. */
export interface TotalRow {
  key: string[];
  counts: number[];
}

export interface LargestTotals {
  /** The rows that counted most in, the largest first. */
  largest: TotalRow[];
  /** How many rows the table holds, and each count summed over all of them. */
  rows: number;
  sums: number[];
}

/**
 * The `limit` rows of a totals table that counted most in (a count that only grows, so the rows chosen change seldom
 * from one read to the next), with the number of rows and the sums of all: what the others add up to is the
 * difference. The store sorts and sums; a federation's many thousand (server, client) pairs never leave it.
 */
export async function largestTotals(db: SqlRunner, of: TotalsTable, limit: number): Promise<LargestTotals> {
  const table = sql.raw(of.table);
  const columns = sql.raw([...of.keys, ...of.counts].join(', '));
  const ranked = sql.raw([`${of.counts[0]} DESC`, ...of.keys].join(', '));
  const sums = sql.raw(of.counts.map((count) => `sum(${count}) AS ${count}`).join(', '));
  const [largest, summed] = await Promise.all([
    db.all<Record<string, string | number>>(sql`SELECT ${columns} FROM ${table} ORDER BY ${ranked} LIMIT ${limit}`),
    db.all<Record<string, string | number | null>>(sql`SELECT count(*) AS row_count, ${sums} FROM ${table}`),
  ]);
  const all = summed[0] ?? {};
  return {
    largest: largest.map((row) => ({
      key: of.keys.map((column) => String(row[column])),
      counts: of.counts.map((column) => Number(row[column])),
    })),
    rows: Number(all.row_count ?? 0),
    sums: of.counts.map((column) => Number(all[column] ?? 0)),
  };
}
