import { type SQL, sql } from 'drizzle-orm';
import { addCounts, type RowsColumn } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import { COUNTER_FAMILIES } from './levels.ts';
import { type RangeFilter, segments } from './rollups.ts';

/** A change to the counted failures of one minute, server and packed pair of profiles (events.act_profile). */
export interface ActionabilityDelta {
  minute: number;
  server: string;
  profile: number;
  failures: number;
}

/** Counted failures of one server with one packed pair of profiles (shared/actionability ServerProfileCount). */
export interface ProfileCountRow {
  server: string;
  packed: number;
  failures: number;
}

const LEVELS = COUNTER_FAMILIES.actionability;
const MINUTE = LEVELS[1].size;

const KEYS: readonly RowsColumn[] = [
  ['server', 'text'],
  ['start', 'bigint'],
  ['profile', 'integer'],
];

/** Adds the deltas to the counts of their minute and of their hour. */
export async function applyActionabilityDeltas(db: SqlRunner, deltas: readonly ActionabilityDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await Promise.all(
    LEVELS.map(({ table, size }) =>
      addCounts(
        db,
        table,
        KEYS,
        ['failures'],
        deltas.map((d) => [d.server, d.minute - (d.minute % size), d.profile, d.failures]),
      ),
    ),
  );
}

/**
 * Counted failures per server and packed pair of profiles over [from, to) (of one server when the filter names it),
 * exactly: whole hours and minutes from the counts kept at ingest, the sub-minute edges from the events.
 */
export async function profileCounts(
  db: SqlRunner,
  filter: Pick<RangeFilter, 'from' | 'to' | 'server' | 'eventsFrom'>,
): Promise<ProfileCountRow[]> {
  const parts = segments(filter, LEVELS);
  const server = filter.server === undefined ? [] : [sql`server = ${filter.server}`];
  const selects: SQL[] = parts.rollups.map(([table, from, to]) => {
    const where = sql.join([sql`start >= ${from}`, sql`start < ${to}`, ...server], sql` AND `);
    return sql`SELECT server, profile, failures FROM ${sql.raw(table)} WHERE ${where}`;
  });
  for (const [from, to] of parts.raw) {
    const where = sql.join(
      [sql`ts >= ${from}`, sql`ts < ${to}`, sql`counted = 1`, sql`act_profile IS NOT NULL`, ...server],
      sql` AND `,
    );
    selects.push(sql`SELECT server, act_profile AS profile, 1 AS failures FROM events WHERE ${where}`);
  }
  const rows = await db.all<{ server: string; profile: number | string; failures: number | string }>(sql`
    SELECT server, profile, sum(failures) AS failures FROM (${sql.join(selects, sql` UNION ALL `)}) AS parts
    GROUP BY server, profile HAVING sum(failures) <> 0 ORDER BY server, profile`);
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

/**
 * The fold's part for this family (db/counters/changes.ts): a counted failure in (+1) or out (-1) of its minute. A
 * profile follows from the event's frames and HTTP facts alone, never from a server's discovery document or overrides,
 * so a reclassification leaves it where it is; only storing and shadowing move it (ADR 13).
 */
export class ActionabilityChanges {
  private readonly deltas: ActionabilityDelta[] = [];

  count(record: { ts: number; server: string; actProfile: number | null }, failures: number): void {
    if (record.actProfile === null) return;
    this.deltas.push({
      minute: record.ts - (record.ts % MINUTE),
      server: record.server,
      profile: record.actProfile,
      failures,
    });
  }

  async write(db: SqlRunner): Promise<void> {
    await applyActionabilityDeltas(db, this.deltas);
    this.deltas.length = 0;
  }
}
