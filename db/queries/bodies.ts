import { sql } from 'drizzle-orm';
import { decodeBlock } from '../body-codec.ts';

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
