import { sql } from 'drizzle-orm';
import { blockLines } from '../body-codec.ts';
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
  const lines = await linesOfRows(db, rows);
  return rows.flatMap(({ bodyBlock, bodyLine, ...row }, r) => {
    const body = lines[r];
    return body === undefined ? [] : [{ ...row, body } as unknown as Row];
  });
}

/**
 * Each row's line, in the rows' order (undefined where its block is not found), for a caller that keeps the rows as
 * they are: copying 4,096 rows of ~45 columns without their line's place took ~40 ms of the event loop a block of
 * compaction (api/services/compaction.ts). The blocks are read LINE_BLOCKS_PER_READ at a time: compaction's rows of
 * one server have their lines in ~4,000 blocks (an insert's blocks hold every server's lines), which read, inflated
 * and copied at once held the event loop ~165 ms a block (profiled at 10M events a day).
 */
export async function linesOfRows(
  db: SqlRunner,
  rows: readonly { bodyBlock: number | string; bodyLine: number }[],
): Promise<(string | undefined)[]> {
  const rowsOfBlock = new Map<number, number[]>();
  rows.forEach(({ bodyBlock }, r) => {
    const id = Number(bodyBlock);
    const of = rowsOfBlock.get(id);
    if (of === undefined) rowsOfBlock.set(id, [r]);
    else of.push(r);
  });
  const lines = new Array<string | undefined>(rows.length);
  const ids = [...rowsOfBlock.keys()];
  for (let at = 0; at < ids.length; at += LINE_BLOCKS_PER_READ) {
    const stored = await db.all<{ id: number | string; data: Uint8Array | string }>(
      sql`SELECT id, data FROM event_bodies WHERE id IN ${listTable(db, ids.slice(at, at + LINE_BLOCKS_PER_READ))}`,
    );
    for (const block of stored) {
      const id = Number(block.id);
      const of = rowsOfBlock.get(id) ?? [];
      const wanted = of.map((r) => (rows[r] as { bodyLine: number }).bodyLine);
      blockLines(block.data, wanted).forEach((line, i) => {
        if (line === undefined) throw new Error(`event_bodies ${id} has no line ${wanted[i]}`);
        lines[of[i] as number] = line;
      });
    }
  }
  return lines;
}

const LINE_BLOCKS_PER_READ = 1_024;

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
