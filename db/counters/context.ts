import type { SqlRunner } from '../runner.ts';
import { CONTEXT_COUNTS, CONTEXT_SERVER_COUNTS } from './families.ts';
import { sumRange } from './family.ts';
import { type RangeFilter, scopeConditions } from './rollups.ts';

/** One row of context counts (`start`: its time bucket's): null applied is "not reported", null reason is "none given". */
export interface ContextRow {
  start: number;
  server: string;
  requested: string;
  applied: string | null;
  reason: string | null;
  requests: number;
}

/**
 * Counted sampling requests per time bucket (0 without a step), server, requested and applied scope and reason over
 * [from, to), exactly (db/counters/family.ts rangeUnion): without a client filter from the counts per server (their
 * minutes are the per-client ones), with one from the per-client minutes.
 */
export async function contextRows(db: SqlRunner, filter: RangeFilter, stepMs: number | null): Promise<ContextRow[]> {
  const family = filter.client === undefined ? CONTEXT_SERVER_COUNTS : CONTEXT_COUNTS;
  const rows = await sumRange<{
    start: number;
    server: string;
    requested: string;
    applied: string;
    reason: string;
    requests: number;
  }>(db, family, {
    window: filter,
    step: stepMs,
    where: scopeConditions(filter),
    keep: ['server', 'requested', 'applied', 'reason'],
  });
  return rows.map((row) => ({
    ...row,
    applied: row.applied === '' ? null : row.applied,
    reason: row.reason === '' ? null : row.reason,
  }));
}
