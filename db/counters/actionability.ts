import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { ACTIONABILITY_COUNTS } from './families.ts';
import { sumRange } from './family.ts';
import { type RangeFilter, scopeConditions } from './rollups.ts';

/** Counted failures of one server with one packed pair of profiles (shared/actionability ServerProfileCount). */
export interface ProfileCountRow {
  server: string;
  packed: number;
  failures: number;
}

/**
 * Counted failures per server and packed pair of profiles over [from, to) (of one server when the filter names it),
 * exactly: whole hours and minutes from the counts kept at ingest, the sub-minute edges from the events.
 */
export async function profileCounts(
  db: SqlRunner,
  filter: Pick<RangeFilter, 'from' | 'to' | 'server' | 'eventsFrom'>,
): Promise<ProfileCountRow[]> {
  const rows = await sumRange<{ server: string; profile: number | string; failures: number | string }>(
    db,
    ACTIONABILITY_COUNTS,
    {
      window: filter,
      step: null,
      where: scopeConditions(filter),
      keep: ['server', 'profile'],
      orderBy: ['server', 'profile'],
    },
  );
  return rows.map((row) => ({ server: row.server, packed: Number(row.profile), failures: Number(row.failures) }));
}

/** The same counts grouped from the events: what `profileCounts` must equal. */
export async function rawProfileCounts(
  db: SqlRunner,
  filter: { from: number; to: number; server?: string },
): Promise<ProfileCountRow[]> {
  const server = filter.server === undefined ? sql`` : sql` AND server = ${filter.server}`;
  const rows = await db.all<{ server: string; profile: number | string; failures: number | string }>(sql`
    SELECT server, act_profile AS profile, count(*) AS failures FROM events
    WHERE ts >= ${filter.from} AND ts < ${filter.to} AND counted = 1 AND act_profile IS NOT NULL${server}
    GROUP BY server, act_profile ORDER BY server, act_profile`);
  return rows.map((row) => ({ server: row.server, packed: Number(row.profile), failures: Number(row.failures) }));
}
