import { type SQL, sql } from 'drizzle-orm';
import { bucketStart } from '../../shared/analysis/time-buckets.ts';
import { type DenialScope, narrowedTo } from '../queries/denials.ts';
import { addCounts, type RowsColumn } from '../queries/lists.ts';
import type { SqlRunner } from '../runner.ts';
import { COUNTER_FAMILIES } from './levels.ts';
import { segments } from './rollups.ts';

/**
 * The decision store's audit counted per hour, server and client (db/schema/denials.ts `denial_hour`): the denials
 * that did not hold, by their answer's hour, and the replayed refusals. The audit (db/counters/denials.ts) replaces
 * an identity's rows from a start; what it deletes and what it writes come here as changes, so the counts stay the
 * sum of the rows they count whatever is audited again. A day's counts then read some rows per hour, client and
 * server, not the day's breaches (a hundred thousand at 10M events a day).
 */
const LEVELS = COUNTER_FAMILIES.denials;
const [{ table: HOURS, size: HOUR }] = LEVELS;

const KEYS: readonly RowsColumn[] = [
  ['start', 'bigint'],
  ['server', 'text'],
  ['client', 'text'],
];

/** Changes to the hour counts, added up and written once per audit. */
export class DenialHourChanges {
  private readonly changes: (string | number)[][] = [];

  /** A denial that did not hold, answered at `ts`, stored (+1) or replaced (-1). */
  breach(server: string, client: string, ts: number, sign: 1 | -1): void {
    this.changes.push([bucketStart(ts, HOUR), server, client, sign, 0]);
  }

  /** Replayed refusals of the hour starting at `start`, stored (+) or replaced (-). */
  replays(server: string, client: string, start: number, replayed: number): void {
    this.changes.push([start, server, client, 0, replayed]);
  }

  async write(db: SqlRunner): Promise<void> {
    await addCounts(db, HOURS, KEYS, ['breaches', 'replayed'], this.changes);
    this.changes.length = 0;
  }
}

/**
 * The denials that did not hold whose later answer falls in the window, counted per client and server: whole hours
 * from the hour counts, the window's edges from `denial_breach` (its (answer_ts, server, client) index).
 */
export async function breachCountsIn(
  db: SqlRunner,
  scope: DenialScope,
): Promise<{ client: string; server: string; count: number }[]> {
  const parts = segments(scope, LEVELS);
  const narrowed = narrowedTo(scope);
  const selects: SQL[] = [
    ...parts.rollups.map(
      ([, from, to]) => sql`SELECT client, server, breaches AS count FROM ${sql.raw(HOURS)}
        WHERE start >= ${from} AND start < ${to} AND breaches <> 0${narrowed}`,
    ),
    ...parts.raw.map(
      ([from, to]) => sql`SELECT client, server, count(*) AS count FROM denial_breach
        WHERE answer_ts >= ${from} AND answer_ts < ${to}${narrowed} GROUP BY client, server`,
    ),
  ];
  const rows = await db.all<{ client: string; server: string; count: number | string }>(sql`SELECT client, server,
      sum(count) AS count FROM (${sql.join(selects, sql` UNION ALL `)}) AS parts
    GROUP BY client, server HAVING sum(count) <> 0 ORDER BY client, server`);
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}

/** Re-presented refusals replayed per client, in the hours that start in the window (the counts are per hour). */
export async function replayedPerClient(db: SqlRunner, scope: DenialScope): Promise<Map<string, number>> {
  const rows = await db.all<{ client: string; replayed: number | string }>(sql`SELECT client,
      sum(replayed) AS replayed FROM ${sql.raw(HOURS)}
    WHERE start >= ${bucketStart(scope.from, HOUR)} AND start < ${scope.to} AND replayed <> 0${narrowedTo(scope)}
    GROUP BY client ORDER BY client`);
  return new Map(rows.map((row) => [row.client, Number(row.replayed)]));
}
