import { type SQL, sql } from 'drizzle-orm';
import type { SeedHour } from '../../shared/analysis/alarm-candidates.ts';
import type { HourSends, IdentitySends } from '../../shared/analysis/identity-ranking.ts';
import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import type { SqlRunner } from '../runner.ts';
import { addCounts, listTable, rowsTable } from './lists.ts';

/** A change to the counted sends of one identity in the hour that holds `ts`. */
export interface IdentityDelta {
  ts: number;
  identity: string;
  sends: number;
}

/** Adds the deltas to the sends of their identity and hour. */
export async function applyIdentityDeltas(db: SqlRunner, deltas: readonly IdentityDelta[]): Promise<void> {
  await addCounts(
    db,
    'identity_hour',
    [
      ['start', 'bigint'],
      ['identity', 'text'],
    ],
    'sends',
    deltas.map(({ ts, identity, sends }) => [ts - (ts % HOUR_MS), identity, sends]),
  );
}

/**
 * The `perHour` most sent identities (sent more than once) of each hour in [fromHour, toHour), optionally of one
 * server; each hour's list read from the partial index on (start, sends), so its cost is the list, not the hour.
 */
export async function hourlyTopIdentities(
  db: SqlRunner,
  { fromHour, toHour, server }: { fromHour: number; toHour: number; server?: string },
  perHour: number,
): Promise<HourSends[]> {
  const ofServer = server === undefined ? sql`` : sql` AND ${serverPrefix(server)}`;
  const lists: SQL[] = [];
  for (let start = fromHour; start < toHour; start += HOUR_MS) {
    lists.push(sql`SELECT * FROM (SELECT start, identity, sends FROM identity_hour
      WHERE start = ${start} AND sends > 1${ofServer} ORDER BY sends DESC, identity LIMIT ${perHour}) AS h`);
  }
  if (lists.length === 0) return [];
  return db.all<HourSends>(sql.join(lists, sql` UNION ALL `));
}

/**
 * Counted sends of each of `identities` in the whole hours [fromHour, toHour), one keyed lookup per identity and
 * hour: the join is written from the lists so that no plan scans the hours' rows.
 */
export async function identityHourSends(
  db: SqlRunner,
  identities: readonly string[],
  { fromHour, toHour }: { fromHour: number; toHour: number },
): Promise<IdentitySends[]> {
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
): Promise<IdentitySends[]> {
  if (identities.length === 0 || from >= to) return [];
  return db.all(sql`SELECT identity, count(*) AS sends FROM events
    WHERE identity IS NOT NULL AND identity IN ${listTable(db, identities)} AND ts >= ${from} AND ts < ${to} AND counted = 1
    GROUP BY identity`);
}

/**
 * The hours in [fromHour, toHour) in which an identity was sent at least `minSends` times (from the partial index),
 * each with the identity's sends in the hours either side.
 */
export async function seedHours(
  db: SqlRunner,
  { fromHour, toHour, server }: { fromHour: number; toHour: number; server?: string },
  minSends: number,
): Promise<SeedHour[]> {
  const ofServer = server === undefined ? sql`` : sql` AND ${serverPrefix(server, sql`s.identity`)}`;
  return db.all(sql`SELECT s.identity, s.start, s.sends, coalesce(p.sends, 0) AS prev, coalesce(n.sends, 0) AS next
    FROM identity_hour s
    LEFT JOIN identity_hour p ON p.start = s.start - ${HOUR_MS} AND p.identity = s.identity
    LEFT JOIN identity_hour n ON n.start = s.start + ${HOUR_MS} AND n.identity = s.identity
    WHERE s.start >= ${fromHour} AND s.start < ${toHour} AND s.sends > 1 AND s.sends >= ${minSends}${ofServer}`);
}

/**
 * The identities that, within their spans (`[identity, from, to]`), were sent at least `minSends` times in some clock
 * bucket of `bucketMs`: counted in the identity index, so that no send is read out.
 */
export async function busyIdentities(
  db: SqlRunner,
  spans: readonly (readonly [string, number, number])[],
  bucketMs: number,
  minSends: number,
): Promise<string[]> {
  if (spans.length === 0) return [];
  const table = rowsTable(
    db,
    [
      ['identity', 'text'],
      ['span_from', 'bigint'],
      ['span_to', 'bigint'],
    ],
    spans,
  );
  const rows = await db.all<{ identity: string }>(sql`SELECT DISTINCT identity FROM (
      SELECT e.identity, e.ts - e.ts % ${bucketMs} AS bucket FROM ${table} AS s
      JOIN events e ON e.identity = s.identity AND e.ts >= s.span_from AND e.ts < s.span_to
      WHERE e.identity IS NOT NULL AND e.counted = 1
      GROUP BY 1, 2 HAVING count(*) >= ${minSends}) AS busy`);
  return rows.map((row) => row.identity);
}

/**
 * An identity names its server first (DOMAIN.md section 5). Compared with `=` rather than a range or LIKE, which
 * depend on the collation; substr counts characters on both stores, as the spread string does.
 */
function serverPrefix(server: string, column: SQL = sql`identity`): SQL {
  const prefix = `${server}:`;
  return sql`substr(${column}, 1, ${[...prefix].length}) = ${prefix}`;
}
