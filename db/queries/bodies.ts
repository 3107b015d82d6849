import { sql } from 'drizzle-orm';
import { decodeBlock } from '../body-codec.ts';
import { storedKey } from '../event-row.ts';
import type { SqlRunner } from '../runner.ts';
import { rowsTable } from './lists.ts';

/** The events with the blocks that hold their lines: select BODY_COLUMNS from it, then pass the rows to withBodies. */
export const EVENTS_WITH_BODIES = sql`events JOIN event_bodies ON event_bodies.id = events.body_block`;

export const BODY_COLUMNS = sql`body_block AS "bodyBlock", body_line AS "bodyLine", event_bodies.data AS "bodyData"`;

/** A row selected with BODY_COLUMNS: its line is still in its block. */
export type WithBlock<Row extends { body: string }> = Omit<Row, 'body'> & {
  bodyBlock: number;
  bodyLine: number;
  bodyData: Uint8Array | string;
};

/** The rows with their lines; a block is inflated once however many of its rows were read. */
export function withBodies<Row extends { body: string }>(rows: readonly WithBlock<Row>[]): Row[] {
  const blocks = new Map<number, string[]>();
  return rows.map(({ bodyBlock, bodyLine, bodyData, ...row }) => {
    let lines = blocks.get(bodyBlock);
    if (lines === undefined) {
      lines = decodeBlock(bodyData);
      blocks.set(bodyBlock, lines);
    }
    const body = lines[bodyLine];
    if (body === undefined) throw new Error(`event_bodies ${bodyBlock} has no line ${bodyLine}`);
    return { ...row, body } as unknown as Row;
  });
}

/** The stored lines of the events with these keys (event id, time, server), by their db/event-row.ts storedKey. */
export async function linesOf(
  db: SqlRunner,
  keys: readonly { eventId: string; ts: number; server: string }[],
): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const table = rowsTable(
    db,
    [
      ['id', 'text'],
      ['ts', 'bigint'],
      ['server', 'text'],
    ],
    keys.map((key) => [key.eventId, key.ts, key.server]),
  );
  const rows = await db.all<WithBlock<{ eventId: string; ts: number; server: string; body: string }>>(sql`SELECT
      events.event_id AS "eventId", events.ts AS ts, events.server AS server, ${BODY_COLUMNS} FROM ${EVENTS_WITH_BODIES}
      JOIN ${table} AS k ON events.event_id = k.id AND events.ts = k.ts AND events.server = k.server`);
  // PostgreSQL answers bigint columns as text.
  return new Map(withBodies(rows).map((row) => [storedKey({ ...row, ts: Number(row.ts) }), row.body]));
}
