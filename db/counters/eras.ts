import { sql } from 'drizzle-orm';
import type { Era } from '../../shared/era.ts';
import type { SqlRunner } from '../runner.ts';
import { ERA_CLIENT_COUNTS, ERA_COUNT_COLUMNS, ERA_SERVER_COUNTS, type EraCountColumn, SENDER } from './families.ts';
import { sumRange } from './family.ts';
import type { RangeFilter } from './rollups.ts';

const FAMILIES = { server: ERA_SERVER_COUNTS, client: ERA_CLIENT_COUNTS } as const;
export type EraCountsBy = keyof typeof FAMILIES;

/** One name's counts in one era over a window. */
export interface EraCountRow extends Record<EraCountColumn, number> {
  /** The server or the client ('' for requests a server sent). */
  name: string;
  era: Era | null;
}

/**
 * Counts per server (or client) and era over [from, to), of one server (or client) when `name` is given, exactly:
 * whole hours and minutes from the counts kept at ingest, the sub-minute edges from the events.
 */
export async function eraCounts(
  db: SqlRunner,
  window: Pick<RangeFilter, 'from' | 'to' | 'eventsFrom'>,
  by: EraCountsBy,
  name?: string,
): Promise<EraCountRow[]> {
  const rows = await sumRange<Record<string, number | string>>(db, FAMILIES[by], {
    window,
    step: null,
    where: (key) => (name === undefined ? [] : [sql`${key(by)} = ${name}`]),
    keep: [by, 'era'],
    orderBy: [by, 'era'],
  });
  return rows.map((row) => eraRow({ ...row, name: row[by] as string }));
}

/** The same counts grouped from the events alone: what `eraCounts` must equal. */
export async function rawEraCounts(
  db: SqlRunner,
  window: { from: number; to: number },
  by: EraCountsBy,
): Promise<EraCountRow[]> {
  const name = by === 'server' ? sql`server` : sql`coalesce(${SENDER}, '')`;
  const rows = await db.all<Record<string, number | string>>(sql`SELECT ${name} AS name,
      coalesce(era, '') AS era, count(*) AS requests, sum(CASE WHEN kind = 'era_legacy' THEN 1 ELSE 0 END) AS legacy,
      sum(CASE WHEN bucket = 'pending' THEN 1 ELSE 0 END) AS pending,
      sum(CASE WHEN continuation = 1 THEN 1 ELSE 0 END) AS continuations,
      sum(CASE WHEN bucket = 'pending' AND continuation = 0 THEN 1 ELSE 0 END) AS calls,
      sum(CASE WHEN (bucket = 'pending' AND continuation = 0) OR (continuation = 1 AND kind <> 'invalid_request_state')
        THEN 1 ELSE 0 END) AS rounds
    FROM events WHERE counted = 1 AND ts >= ${window.from} AND ts < ${window.to}
    GROUP BY 1, 2 ORDER BY 1, 2`);
  return rows.map(eraRow);
}

function eraRow(row: Record<string, number | string>): EraCountRow {
  const era = row.era === '2025' || row.era === '2026' ? row.era : null;
  const counts = Object.fromEntries(ERA_COUNT_COLUMNS.map((column) => [column, Number(row[column])]));
  return { name: String(row.name), era, ...(counts as Record<EraCountColumn, number>) };
}
