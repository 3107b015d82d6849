import { type SQL, sql } from 'drizzle-orm';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import type { SqlRunner } from '../runner.ts';
import { listTable, rowsTable } from './lists.ts';

/** A change to the counted sends of one identity in the hour that holds `ts`. */
export interface IdentityDelta {
  ts: number;
  identity: string;
  sends: number;
}

/** One identity's counted sends in one hour (identity_hour). */
export interface IdentityHourRow {
  start: number;
  identity: string;
  sends: number;
}

/** Adds the deltas, summed per row first (an upsert may touch a row once), in key order (no PostgreSQL deadlock). */
export async function applyIdentityDeltas(db: SqlRunner, deltas: readonly IdentityDelta[]): Promise<void> {
  const sums = new Map<string, [number, string, number]>();
  for (const { ts, identity, sends } of deltas) {
    const start = ts - (ts % HOUR_MS);
    const key = `${start}\u0000${identity}`;
    const row = sums.get(key);
    if (row === undefined) sums.set(key, [start, identity, sends]);
    else row[2] += sends;
  }
  const rows = [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, row]) => row)
    .filter((row) => row[2] !== 0);
  if (rows.length === 0) return;
  const table = rowsTable(
    db,
    [
      ['start', 'bigint'],
      ['identity', 'text'],
      ['sends', 'integer'],
    ],
    rows,
  );
  await db.run(sql`INSERT INTO identity_hour (start, identity, sends) SELECT * FROM ${table} AS deltas WHERE true
    ON CONFLICT (start, identity) DO UPDATE SET sends = identity_hour.sends + excluded.sends`);
}

/**
 * The `perHour` most sent identities (sent more than once) of each hour in [fromHour, toHour), optionally of one
 * server; each hour's list read from the partial index on (start, sends), so its cost is the list, not the hour.
 */
export async function hourlyTopIdentities(
  db: SqlRunner,
  { fromHour, toHour, server }: { fromHour: number; toHour: number; server?: string },
  perHour: number,
): Promise<IdentityHourRow[]> {
  const ofServer = server === undefined ? sql`` : sql` AND ${serverPrefix(server)}`;
  const lists: SQL[] = [];
  for (let start = fromHour; start < toHour; start += HOUR_MS) {
    lists.push(sql`SELECT * FROM (SELECT start, identity, sends FROM identity_hour
      WHERE start = ${start} AND sends > 1${ofServer} ORDER BY sends DESC, identity LIMIT ${perHour}) AS h`);
  }
  if (lists.length === 0) return [];
  return db.all<IdentityHourRow>(sql.join(lists, sql` UNION ALL `));
}

/**
 * Counted sends of each of `identities` in the whole hours [fromHour, toHour), one keyed lookup per identity and
 * hour: the join is written from the lists so that no plan scans the hours' rows.
 */
export async function identityHourSends(
  db: SqlRunner,
  identities: readonly string[],
  { fromHour, toHour }: { fromHour: number; toHour: number },
): Promise<{ identity: string; sends: number }[]> {
  if (identities.length === 0 || fromHour >= toHour) return [];
  const hours: [number][] = [];
  for (let start = fromHour; start < toHour; start += HOUR_MS) hours.push([start]);
  return db.all(sql`SELECT i.value AS identity, sum(h.sends) AS sends
    FROM ${listTable(db, identities)} AS i CROSS JOIN ${rowsTable(db, [['start', 'bigint']], hours)} AS t
    JOIN identity_hour h ON h.start = t.start AND h.identity = i.value
    GROUP BY i.value`);
}

/** Counted sends of each of `identities` over [from, to) from the events: the part-hours at a window's edges. */
export async function identityEventSends(
  db: SqlRunner,
  identities: readonly string[],
  { from, to }: { from: number; to: number },
): Promise<{ identity: string; sends: number }[]> {
  if (identities.length === 0 || from >= to) return [];
  return db.all(sql`SELECT identity, count(*) AS sends FROM events
    WHERE identity IS NOT NULL AND identity IN ${listTable(db, identities)} AND ts >= ${from} AND ts < ${to} AND counted = 1
    GROUP BY identity`);
}

/**
 * An identity names its server first (DOMAIN.md section 5). Compared with `=` rather than a range or LIKE, which
 * depend on the collation; substr counts characters on both stores, as the spread string does.
 */
function serverPrefix(server: string): SQL {
  const prefix = `${server}:`;
  return sql`substr(identity, 1, ${[...prefix].length}) = ${prefix}`;
}
