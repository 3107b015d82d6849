import { type SQL, sql } from 'drizzle-orm';
import type { SavedPartition, VerdictWrite } from '../../shared/analysis/gate-step.ts';
import type { SqlRunner } from '../runner.ts';
import { type AnalysisRow, analysisColumns } from './analysis.ts';
import { serverBesideClient } from './events.ts';
import { queued } from './fold-queue.ts';
import { allPerServer, listTable, type RowsColumn, rowsTable, type Upsert, upsertRows } from './lists.ts';

export async function loadGatePartitions(db: SqlRunner, partitions: readonly string[]): Promise<SavedPartition[]> {
  if (partitions.length === 0) return [];
  return db.all<SavedPartition>(sql`SELECT partition, wait_until AS "waitUntil", frontier_ts AS "frontierTs",
      frontier_id AS "frontierId", storms
    FROM gate_partitions WHERE partition IN ${listTable(db, partitions)}`);
}

const SAVE_PARTITIONS: Upsert = {
  table: 'gate_partitions',
  columns: [
    ['partition', 'text'],
    ['wait_until', 'bigint'],
    ['frontier_ts', 'bigint'],
    ['frontier_id', 'text'],
    ['storms', 'text'],
  ],
  key: ['partition'],
  set: `wait_until = excluded.wait_until, frontier_ts = excluded.frontier_ts, frontier_id = excluded.frontier_id,
    storms = excluded.storms`,
};

export async function saveGatePartitions(db: SqlRunner, rows: readonly SavedPartition[]): Promise<void> {
  await upsertRows(
    db,
    SAVE_PARTITIONS,
    rows.map((row) => [row.partition, row.waitUntil, row.frontierTs, row.frontierId, row.storms]),
  );
}

/** What the gate holds about one request key; `key` is the digest the gate maintenance files it under. */
export interface GateKeyRow {
  partition: string;
  key: string;
  /** KeyGateState as JSON. */
  state: string;
}

export type KeyRef = Pick<GateKeyRow, 'partition' | 'key'>;

const KEY_COLUMNS = [
  ['partition', 'text'],
  ['key', 'text'],
] as const satisfies readonly RowsColumn[];

/**
 * Where key states are kept: the gate's as it stands (`gate_keys`), or at the cold horizon (`gate_checkpoint_keys`,
 * db/queries/gate-checkpoints.ts). Both have the same columns.
 */
export type KeyStates = 'gate_keys' | 'gate_checkpoint_keys';

/** The stored states of the given keys; keys that hold nothing have no row. */
export async function loadGateKeys(
  db: SqlRunner,
  keys: readonly KeyRef[],
  table: KeyStates = 'gate_keys',
): Promise<GateKeyRow[]> {
  if (keys.length === 0) return [];
  return db.all<GateKeyRow>(sql`SELECT g.partition, g.key, g.state FROM ${keyTable(db, keys)} AS wanted
    JOIN ${sql.identifier(table)} g ON g.partition = wanted.partition AND g.key = wanted.key`);
}

const saveKeys = (table: KeyStates): Upsert => ({
  table,
  columns: [...KEY_COLUMNS, ['state', 'text']],
  key: ['partition', 'key'],
  set: 'state = excluded.state',
});

export async function saveGateKeys(
  db: SqlRunner,
  rows: readonly GateKeyRow[],
  table: KeyStates = 'gate_keys',
): Promise<void> {
  await upsertRows(
    db,
    saveKeys(table),
    rows.map((row) => [row.partition, row.key, row.state]),
  );
}

/** Deletes the rows of keys that hold nothing now. */
export async function dropGateKeys(
  db: SqlRunner,
  keys: readonly KeyRef[],
  table: KeyStates = 'gate_keys',
): Promise<void> {
  if (keys.length === 0) return;
  await db.run(sql`DELETE FROM ${sql.identifier(table)}
    WHERE (partition, key) IN (SELECT partition, key FROM ${keyTable(db, keys)} AS dropped)`);
}

/** Before the replay of some partitions writes their keys afresh. */
export async function clearPartitionGates(db: SqlRunner, partitions: readonly string[]): Promise<void> {
  if (partitions.length === 0) return;
  await db.run(sql`DELETE FROM gate_keys WHERE partition IN ${listTable(db, partitions)}`);
}

function keyTable(db: SqlRunner, keys: readonly KeyRef[]) {
  return rowsTable(
    db,
    KEY_COLUMNS,
    keys.map((k) => [k.partition, k.key]),
  );
}

/** A stored event as the gate replays it: its arrival order, and 1 in `queued` while still queued for its fold. */
export interface PartitionRow extends AnalysisRow {
  seq: number;
  queued: number;
}

/**
 * Every event of each (client, server), or those stored after `afterSeq`, shadowed proxy records included (their
 * verdicts must be cleared), in no order (the caller orders them as the gate does); one statement for them all.
 * `queued` is read in the same statement (db/queries/fold-queue.ts), so from the same snapshot.
 */
export async function partitionsEvents(
  db: SqlRunner,
  partitions: readonly Partition[],
  afterSeq = 0,
): Promise<PartitionRow[][]> {
  const grouped = partitions.map((): PartitionRow[] => []);
  if (partitions.length === 0) return grouped;
  const rows = await db.all<PartitionRow & { probe: number | string }>(sql`SELECT p.probe AS probe,
      seq, ${analysisColumns(db)}, ${queued(db)} AS queued
    FROM ${partitionProbes(db, numbered(partitions))} AS p
    JOIN events ON events.client = p.probe_client AND ${serverBesideClient(sql`p.probe_server`)}
    WHERE events.seq > ${afterSeq}`);
  for (const { probe, ...row } of rows) grouped[Number(probe)]?.push(row);
  return grouped;
}

/**
 * The stored events of each (client, server), counted up to `cap` (the client index serves it, `cap` bounds it), in
 * one statement: a fold's first batches open a thousand partitions, and a round trip each was seconds on PostgreSQL.
 * There, a leg per server (allPerServer), which Citus routes to the server's node: it refuses the correlated count
 * over a table function otherwise.
 */
export async function partitionSizes(db: SqlRunner, partitions: readonly Partition[], cap: number): Promise<number[]> {
  if (partitions.length === 0) return [];
  const counted = (probes: SQL, server: SQL) => sql`SELECT p.probe AS probe,
      (SELECT COUNT(*) FROM (SELECT 1 FROM events WHERE client = p.probe_client AND ${server} LIMIT ${cap}) AS capped)
      AS n FROM ${probes} AS p`;
  const probed = numbered(partitions);
  const rows =
    db.dialect === 'sqlite'
      ? await db.all<SizeRow>(counted(partitionProbes(db, probed), serverBesideClient(sql`p.probe_server`)))
      : await allPerServer<(typeof probed)[number], SizeRow>(db, probed, (server, ofServer) =>
          counted(partitionProbes(db, ofServer), sql`server = ${server}`),
        );
  const sizes = partitions.map(() => 0);
  for (const row of rows) sizes[Number(row.probe)] = Number(row.n);
  return sizes;
}

interface SizeRow {
  probe: number | string;
  n: number | string;
}

/** A (client, server) pair: one gate partition. */
export interface Partition {
  client: string;
  server: string;
}

/** Partitions with their place in the list, which the rows read for them answer as `probe`. */
function numbered(partitions: readonly Partition[]): (Partition & { probe: number })[] {
  return partitions.map((partition, probe) => ({ ...partition, probe }));
}

/**
 * Partitions as a derived table (probe: their place in the list, probe_client, probe_server), named apart from the
 * events' own columns so that a join to the events can select those unqualified.
 */
function partitionProbes(db: SqlRunner, partitions: readonly (Partition & { probe: number })[]): SQL {
  return rowsTable(
    db,
    [
      ['probe', 'integer'],
      ['probe_client', 'text'],
      ['probe_server', 'text'],
    ],
    partitions.map(({ client, server, probe }) => [probe, client, server]),
  );
}

export async function clientsOfServer(db: SqlRunner, server: string): Promise<string[]> {
  const rows = await db.all<{ client: string }>(
    sql`SELECT DISTINCT client FROM events WHERE server = ${server} AND client IS NOT NULL`,
  );
  return rows.map((row) => row.client);
}

/**
 * Writes verdicts in one statement; callers pass only those that differ from what is stored. An event is named by its
 * dedupe key (event_id, ts, server): the time lets PostgreSQL look in one day partition.
 */
export async function setVerdicts(db: SqlRunner, verdicts: readonly VerdictWrite[]): Promise<void> {
  if (verdicts.length === 0) return;
  const table = rowsTable(
    db,
    [
      ['event_id', 'text'],
      ['ts', 'bigint'],
      ['server', 'text'],
      ['avoidable', 'smallint'],
      ['reason', 'text'],
      ['blocked_by', 'text'],
    ],
    verdicts.map((v) => [v.eventId, v.ts, v.server, v.avoidable ? 1 : 0, v.reason, v.blockedBy]),
  );
  await db.run(sql`UPDATE events SET avoidable = verdicts.avoidable, gate_reason = verdicts.reason,
    blocked_by = verdicts.blocked_by FROM ${table} AS verdicts
    WHERE events.event_id = verdicts.event_id AND events.ts = verdicts.ts AND events.server = verdicts.server`);
}

/** Every (client, server) the gate judges events of, as partition keys (JSON [client, server]). */
export async function judgedPartitions(db: SqlRunner): Promise<string[]> {
  const rows = await db.all<{ client: string; server: string }>(
    sql`SELECT DISTINCT client, server FROM events WHERE client IS NOT NULL AND counted = 1`,
  );
  return rows.map((row) => JSON.stringify([row.client, row.server]));
}

/** Partitions whose storms are kept (the rest are built when a batch touches them, or by `buildMissingStorms`). */
export async function partitionsWithStorms(db: SqlRunner): Promise<string[]> {
  const rows = await db.all<{ partition: string }>(sql`SELECT partition FROM gate_partitions WHERE storms IS NOT NULL`);
  return rows.map((row) => row.partition);
}
