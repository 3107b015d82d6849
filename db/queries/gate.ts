import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { ANALYSIS_COLUMNS, type AnalysisRow } from './analysis.ts';
import { listTable, rowsTable } from './lists.ts';

export interface GatePartitionRow {
  partition: string;
  state: string;
  frontierTs: number;
  frontierId: string;
}

export async function loadGatePartitions(db: SqlRunner, partitions: readonly string[]): Promise<GatePartitionRow[]> {
  if (partitions.length === 0) return [];
  return db.all<GatePartitionRow>(sql`SELECT partition, state, frontier_ts AS "frontierTs", frontier_id AS "frontierId"
    FROM gate_partitions WHERE partition IN ${listTable(db, partitions)}`);
}

export async function saveGatePartitions(db: SqlRunner, rows: readonly GatePartitionRow[]): Promise<void> {
  if (rows.length === 0) return;
  const table = rowsTable(
    db,
    [
      ['partition', 'text'],
      ['state', 'text'],
      ['frontier_ts', 'bigint'],
      ['frontier_id', 'text'],
    ],
    rows.map((row) => [row.partition, row.state, row.frontierTs, row.frontierId]),
  );
  await db.run(sql`INSERT INTO gate_partitions (partition, state, frontier_ts, frontier_id)
    SELECT * FROM ${table} AS saved WHERE true
    ON CONFLICT (partition) DO UPDATE SET state = excluded.state, frontier_ts = excluded.frontier_ts,
      frontier_id = excluded.frontier_id`);
}

export async function moveFrontiers(db: SqlRunner, rows: readonly Omit<GatePartitionRow, 'state'>[]): Promise<void> {
  if (rows.length === 0) return;
  const table = rowsTable(
    db,
    [
      ['partition', 'text'],
      ['frontier_ts', 'bigint'],
      ['frontier_id', 'text'],
    ],
    rows.map((row) => [row.partition, row.frontierTs, row.frontierId]),
  );
  await db.run(sql`UPDATE gate_partitions SET frontier_ts = moved.frontier_ts, frontier_id = moved.frontier_id
    FROM ${table} AS moved WHERE gate_partitions.partition = moved.partition`);
}

/** Every event of one (client, server), shadowed proxy records included (their verdicts must be cleared). */
export async function partitionEvents(db: SqlRunner, client: string, server: string): Promise<AnalysisRow[]> {
  return db.all<AnalysisRow>(sql`SELECT ${ANALYSIS_COLUMNS} FROM events
    WHERE client = ${client} AND server = ${server} ORDER BY ts, event_id`);
}

export async function clientsOfServer(db: SqlRunner, server: string): Promise<string[]> {
  const rows = await db.all<{ client: string }>(
    sql`SELECT DISTINCT client FROM events WHERE server = ${server} AND client IS NOT NULL`,
  );
  return rows.map((row) => row.client);
}

/** Writes verdicts in one statement; callers pass only those that differ from what is stored. */
export async function setVerdicts(
  db: SqlRunner,
  verdicts: readonly { eventId: string; avoidable: boolean; reason: string | null }[],
): Promise<void> {
  if (verdicts.length === 0) return;
  const table = rowsTable(
    db,
    [
      ['event_id', 'text'],
      ['avoidable', 'smallint'],
      ['reason', 'text'],
    ],
    verdicts.map((v) => [v.eventId, v.avoidable ? 1 : 0, v.reason]),
  );
  await db.run(sql`UPDATE events SET avoidable = verdicts.avoidable, gate_reason = verdicts.reason
    FROM ${table} AS verdicts WHERE events.event_id = verdicts.event_id`);
}
