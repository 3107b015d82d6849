import { type SQL, sql } from 'drizzle-orm';
import type { StormsKept } from '../../shared/analysis/gate-step.ts';
import type { StormOrder, StormSummary } from '../../shared/analysis/storm-model.ts';
import type { Bucket } from '../../shared/classify/types.ts';
import type { SqlRunner } from '../runner.ts';
import { whereClause } from './events.ts';
import { listTable, rowsTable, type Upsert, upsertRows } from './lists.ts';
import { getSetting, setSettingOnce } from './settings.ts';

const SAVE_STORMS: Upsert = {
  table: 'storms',
  columns: [
    ['id', 'text'],
    ['client', 'text'],
    ['server', 'text'],
    ['sent_by', 'text'],
    ['kind', 'text'],
    ['key', 'text'],
    ['paths', 'text'],
    ['attempts', 'integer'],
    ['avoidable', 'integer'],
    ['first_ts', 'bigint'],
    ['last_ts', 'bigint'],
    ['first_bucket', 'text'],
    ['first_kind', 'text'],
    ['title', 'text'],
  ],
  // A storm's id is a digest of its kind, client, server and first event; the server is in the key for ADR 14.
  key: ['id', 'server'],
  set: `key = excluded.key, paths = excluded.paths, attempts = excluded.attempts, avoidable = excluded.avoidable,
    last_ts = excluded.last_ts,
    title = excluded.title`,
};

/** Inserts new storms and replaces the ones that grew. */
export async function saveStorms(db: SqlRunner, storms: readonly StormSummary[]): Promise<void> {
  await upsertRows(
    db,
    SAVE_STORMS,
    storms.map((s) => [
      s.id,
      s.client,
      s.server,
      s.sentBy,
      s.kind,
      s.key,
      JSON.stringify(s.paths),
      s.attempts,
      s.avoidable,
      s.firstTs,
      s.lastTs,
      s.firstFailure.bucket,
      s.firstFailure.kind,
      s.title,
    ]),
  );
}

/**
 * Before the replay of some (client, server) partitions writes their storms afresh: each partition's storms, but
 * from a checkpoint those it keeps (shared/analysis/gate-step.ts StormsKept: begun before `from`, or listed final).
 */
export async function clearStorms(
  db: SqlRunner,
  partitions: readonly { client: string; server: string; kept: StormsKept | null }[],
): Promise<void> {
  if (partitions.length === 0) return;
  const cleared = rowsTable(
    db,
    [
      ['client', 'text'],
      ['server', 'text'],
      ['cleared_from', 'bigint'],
    ],
    partitions.map(({ client, server, kept }) => [client, server, kept?.from ?? Number.MIN_SAFE_INTEGER]),
  );
  // Storm ids name their partition, so the kept ones can be listed together.
  const final = listTable(
    db,
    partitions.flatMap(({ kept }) => kept?.final ?? []),
  );
  // The pair's own test first: the (client, server) index finds the rows, the rest is read for those alone.
  await db.run(sql`DELETE FROM storms WHERE (client, server) IN (SELECT client, server FROM ${cleared} AS pairs)
    AND first_ts >= (SELECT min(c.cleared_from) FROM ${cleared} AS c WHERE c.client = storms.client AND c.server = storms.server)
    AND id NOT IN ${final}`);
}

/** Deletes the storms a partition showed that its data no longer make. */
export async function deleteStorms(db: SqlRunner, storms: readonly { id: string; server: string }[]): Promise<void> {
  if (storms.length === 0) return;
  const gone = rowsTable(
    db,
    [
      ['id', 'text'],
      ['server', 'text'],
    ],
    storms.map((s) => [s.id, s.server]),
  );
  await db.run(sql`DELETE FROM storms WHERE (id, server) IN (SELECT id, server FROM ${gone} AS gone)`);
}

interface StormRow {
  id: string;
  client: string;
  server: string;
  sentBy: StormSummary['sentBy'];
  kind: StormSummary['kind'];
  key: string;
  paths: string;
  attempts: number;
  avoidable: number;
  firstTs: number;
  lastTs: number;
  firstBucket: Bucket;
  firstKind: string;
  title: string;
}

export interface StormScope {
  from: number;
  to: number;
  server?: string;
  client?: string;
  kind?: StormSummary['kind'];
}

/** Storms that ran at some time in [from, to): whole, including attempts outside the window. */
function stormConditions(scope: StormScope): SQL[] {
  return [sql`last_ts >= ${scope.from}`, sql`first_ts < ${scope.to}`, ...stormFilters(scope)];
}

/** The scope's server, client and kind, if given. */
function stormFilters({ server, client, kind }: Omit<StormScope, 'from' | 'to'>): SQL[] {
  const conditions: SQL[] = [];
  if (server !== undefined) conditions.push(sql`server = ${server}`);
  if (client !== undefined) conditions.push(sql`client = ${client}`);
  if (kind !== undefined) conditions.push(sql`kind = ${kind}`);
  return conditions;
}

/** Every storm of the scope, in no particular order. */
export async function stormRows(db: SqlRunner, scope: StormScope): Promise<StormSummary[]> {
  return selectStorms(db, stormConditions(scope));
}

/** The first `limit` storms of the scope in `order`; `activeSince` is where active storms begin (for `rank`). */
export async function orderedStormRows(
  db: SqlRunner,
  scope: StormScope,
  order: StormOrder,
  limit: number,
  activeSince: number,
): Promise<StormSummary[]> {
  const orderBy = {
    first: sql`first_ts, kind, id`,
    rank: sql`CASE WHEN last_ts >= ${activeSince} THEN 0 ELSE 1 END, avoidable DESC, last_ts DESC, id`,
    newest: sql`first_ts DESC, attempts DESC, id`,
  }[order];
  // The page is chosen from the window index alone, then read whole: ordered with all their columns, a day's ~200k
  // storms newest first were each read out to be sorted (~110 ms; the sort key alone fits in the index).
  const page = sql`SELECT id FROM storms ${whereClause(stormConditions(scope))} ORDER BY ${orderBy} LIMIT ${limit}`;
  return selectStorms(db, [sql`id IN (${page})`], sql` ORDER BY ${orderBy}`);
}

/**
 * How many storms the scope holds, and how many of them are active (last attempt at or after `activeSince`). Those
 * that ran in [from, to) are those last seen at or after `from`, less those begun at or after `to` (last seen after
 * it too): a count of one index range reads no column, while the window's own two-sided test decodes every entry
 * (a day's ~190k storms at 10M events a day: ~20 ms, against ~3 ms). The second range is empty for a window that
 * ends now.
 */
export async function stormCounts(
  db: SqlRunner,
  scope: StormScope,
  activeSince: number,
): Promise<{ total: number; active: number }> {
  const { from, to } = scope;
  const seen = whereClause([sql`last_ts >= ${from}`, ...stormFilters(scope)]);
  const later = whereClause([sql`last_ts >= ${to}`, sql`first_ts >= ${to}`, ...stormFilters(scope)]);
  const active = whereClause(stormConditions({ ...scope, from: Math.max(from, activeSince) }));
  const [row] = await db.all<{ total: number; active: number }>(sql`SELECT
      (SELECT count(*) FROM storms ${seen}) - (SELECT count(*) FROM storms ${later}) AS total,
      (SELECT count(*) FROM storms ${active}) AS active`);
  return { total: Number(row?.total ?? 0), active: Number(row?.active ?? 0) };
}

/**
 * Active storms per server (a last attempt at or after `activeSince`, begun before `now`): what stormCounts calls
 * `active` for a window ending now, for every server at once. Counted here, not grouped in SQL: SQLite would then walk
 * the per-server index whole (every storm kept, for 400 days) instead of the window index's newest entries.
 */
export async function activeStormsPerServer(
  db: SqlRunner,
  activeSince: number,
  now: number,
): Promise<{ server: string; active: number }[]> {
  const rows = await db.all<{ server: string }>(
    sql`SELECT server FROM storms ${whereClause(stormConditions({ from: activeSince, to: now }))}`,
  );
  const active = new Map<string, number>();
  for (const { server } of rows) active.set(server, (active.get(server) ?? 0) + 1);
  return [...active].map(([server, count]) => ({ server, active: count }));
}

export async function stormRow(db: SqlRunner, id: string): Promise<StormSummary | null> {
  const [storm] = await selectStorms(db, [sql`id = ${id}`]);
  return storm ?? null;
}

async function selectStorms(db: SqlRunner, conditions: SQL[], tail = sql``): Promise<StormSummary[]> {
  const rows = await db.all<StormRow>(sql`SELECT id, client, server, sent_by AS "sentBy", kind, key, paths, attempts,
      avoidable, first_ts AS "firstTs", last_ts AS "lastTs", first_bucket AS "firstBucket", first_kind AS "firstKind",
      title
    FROM storms ${whereClause(conditions)}${tail}`);
  return rows.map(({ paths, firstBucket, firstKind, ...row }) => ({
    ...row,
    actor: row.sentBy === 'server' ? row.server : row.client,
    counterpart: row.sentBy === 'server' ? row.client : row.server,
    paths: JSON.parse(paths) as string[],
    firstFailure: { bucket: firstBucket, kind: firstKind },
  }));
}

const STORMS_BUILT = 'storms_built';

/** Whether every stored event's storms are kept: false while a store from before storms were kept is being built. */
export async function stormsComplete(db: SqlRunner): Promise<boolean> {
  return (await getSetting(db, STORMS_BUILT)) !== null;
}

/** Every partition's storms are built (api/services/gate-maintenance.ts buildMissingStorms). */
export async function markStormsBuilt(db: SqlRunner): Promise<void> {
  await setSettingOnce(db, STORMS_BUILT, new Date().toISOString());
}
