import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../runner.ts';
import { ANALYSIS_COLUMNS, type AnalysisRow } from './analysis.ts';
import { listTable } from './lists.ts';

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

export async function saveGatePartition(db: SqlRunner, row: GatePartitionRow): Promise<void> {
  await db.run(sql`INSERT INTO gate_partitions (partition, state, frontier_ts, frontier_id)
    VALUES (${row.partition}, ${row.state}, ${row.frontierTs}, ${row.frontierId})
    ON CONFLICT (partition) DO UPDATE SET state = excluded.state, frontier_ts = excluded.frontier_ts,
      frontier_id = excluded.frontier_id`);
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

/** Writes the verdicts that differ from what is stored; avoidable rows are the minority, so only they are touched. */
export async function setVerdicts(
  db: SqlRunner,
  verdicts: readonly { eventId: string; avoidable: boolean; reason: string | null }[],
): Promise<void> {
  for (const verdict of verdicts) {
    await db.run(sql`UPDATE events SET avoidable = ${verdict.avoidable ? 1 : 0}, gate_reason = ${verdict.reason}
      WHERE event_id = ${verdict.eventId}`);
  }
}
