import { sql } from 'drizzle-orm';
import { decodeBlock } from '../body-codec.ts';
import { storedKey } from '../event-row.ts';
import type { SqlRunner } from '../runner.ts';
import { packedEvents } from './cold-events.ts';
import { listTable, rowsTable } from './lists.ts';

/**
 * Where an event's line is: select it from events, then pass the rows to withBodies, which reads their blocks. Not
 * joined in the same statement: on Citus (docs/adr/0014-distribution-by-server.md) event_bodies is distributed by
 * its id and events by server, and it refuses a join of the two as one that requires repartitioning.
 */
export const LINE_PLACE = sql`body_block AS "bodyBlock", body_line AS "bodyLine"`;

/** A row selected with LINE_PLACE: its line is still in its block. */
export type WithBlock<Row extends { body: string }> = Omit<Row, 'body'> & {
  bodyBlock: number | string;
  bodyLine: number;
};

/**
 * The rows with their lines, their blocks read by id in one statement; a block is inflated once however many of its
 * rows were read. A row whose block is not found is left out, as the join of the two tables left it out.
 */
export async function withBodies<Row extends { body: string }>(
  db: SqlRunner,
  rows: readonly WithBlock<Row>[],
): Promise<Row[]> {
  if (rows.length === 0) return [];
  const ids = [...new Set(rows.map((row) => Number(row.bodyBlock)))];
  const stored = await db.all<{ id: number | string; data: Uint8Array | string }>(
    sql`SELECT id, data FROM event_bodies WHERE id IN ${listTable(db, ids)}`,
  );
  const data = new Map(stored.map((block) => [Number(block.id), block.data]));
  const blocks = new Map<number, string[]>();
  return rows.flatMap(({ bodyBlock, bodyLine, ...row }) => {
    const id = Number(bodyBlock);
    let lines = blocks.get(id);
    if (lines === undefined) {
      const block = data.get(id);
      if (block === undefined) return [];
      lines = decodeBlock(block);
      blocks.set(id, lines);
    }
    const body = lines[bodyLine];
    if (body === undefined) throw new Error(`event_bodies ${id} has no line ${bodyLine}`);
    return [{ ...row, body } as unknown as Row];
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
      events.event_id AS "eventId", events.ts AS ts, events.server AS server, ${LINE_PLACE} FROM events
      JOIN ${table} AS k ON events.event_id = k.id AND events.ts = k.ts AND events.server = k.server`);
  // PostgreSQL answers bigint columns as text.
  const lines = new Map(
    (await withBodies(db, rows)).map((row) => [storedKey({ ...row, ts: Number(row.ts) }), row.body]),
  );
  const packed = keys.filter((key) => !lines.has(storedKey(key)));
  for (const event of await packedEvents(db, packed)) lines.set(storedKey(event), event.body);
  return lines;
}
