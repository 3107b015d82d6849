import { sql } from 'drizzle-orm';
import { addCounts } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import { PAIR_COUNTS } from './families.ts';

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
 * Adds the request counts' changes (rows of the pair family, as db/counters/family.ts FamilyChanges sums them) to the
 * all-time totals. Each key's changes are summed first, then each net change goes to `counted` when it grows and to
 * `withdrawn` when it shrinks: a record counted and taken out again within one transaction was never seen counted,
 * and is in neither.
 */
export async function applyTotalDeltas(db: SqlRunner, rows: readonly (readonly (string | number)[])[]): Promise<void> {
  if (rows.length === 0) return;
  // The sender's client, as the request counts file it: '' for a request the server sent.
  await Promise.all([
    addTotals(db, REQUEST_TOTALS, rows, 'requests'),
    addTotals(db, AVOIDABLE_TOTALS, rows, 'avoidable'),
  ]);
}

function addTotals(
  db: SqlRunner,
  of: TotalsTable,
  rows: readonly (readonly (string | number)[])[],
  count: 'requests' | 'avoidable',
): Promise<void> {
  const columns = PAIR_COUNTS.keys.map((key) => key.column);
  const keys = of.keys.map((key) => 1 + columns.indexOf(key));
  const changed = 1 + columns.length + PAIR_COUNTS.counts.findIndex((c) => c.column === count);
  const nets = new Map<string, { key: string[]; net: number }>();
  for (const row of rows) {
    const key = keys.map((i) => String(row[i]));
    // Names never hold NUL (the event schema rejects it), so NUL joins a key unambiguously.
    const id = key.join('\u0000');
    const net = nets.get(id);
    if (net === undefined) nets.set(id, { key, net: row[changed] as number });
    else net.net += row[changed] as number;
  }
  return addCounts(
    db,
    of.table,
    of.keys.map((key) => [key, 'text'] as const),
    of.counts,
    [...nets.values()].map(({ key, net }) => [...key, Math.max(net, 0), Math.max(-net, 0)]),
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
