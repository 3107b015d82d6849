import { sql } from 'drizzle-orm';
import { unpackColumns } from '../../shared/column-block.ts';
import { SOURCE_SAMPLE } from '../../shared/source-formats.ts';
import type { SqlRunner } from '../runner.ts';
import { coldBlocksIn } from './cold-events.ts';

/** One log format's records of a server in a window, and how many of them carry a frame. */
export interface SourceCountRow {
  /** The format the records were read from (`events.source_format`); null for native NDJSON. */
  format: string | null;
  records: number;
  /** Records with a request or an answer frame. */
  withFrames: number;
  /** Records stored before the store kept whether they carry frames (migration record_frames). */
  framesUnknown: number;
}

/**
 * A server's records in the window by the format they were read from, the newest SOURCE_SAMPLE of them (through
 * events_server_ts_idx): every stored record, server events included, as they are what the format gave.
 */
export async function sourceCounts(
  db: SqlRunner,
  scope: { server: string; from: number; to: number },
): Promise<SourceCountRow[]> {
  const hot = await db.all<SampledRecord>(sql`SELECT ts, source_format AS "format", frames FROM events
    WHERE server = ${scope.server} AND ts >= ${scope.from} AND ts < ${scope.to}
    ORDER BY ts DESC LIMIT ${SOURCE_SAMPLE}`);
  const cold = hot.length < SOURCE_SAMPLE ? await coldSample(db, scope, SOURCE_SAMPLE - hot.length) : [];
  const sample = cold.length === 0 ? hot : [...hot, ...cold].sort((a, b) => b.ts - a.ts).slice(0, SOURCE_SAMPLE);
  const byFormat = new Map<string | null, SourceCountRow>();
  for (const { format, frames } of sample) {
    const row = byFormat.get(format) ?? { format, records: 0, withFrames: 0, framesUnknown: 0 };
    row.records++;
    if (frames !== null && frames > 0) row.withFrames++;
    if (frames === null) row.framesUnknown++;
    byFormat.set(format, row);
  }
  return [...byFormat.values()].sort((a, b) => b.records - a.records);
}

/** Blocks a sample reads at most: a few hours of a busy server, past which it is a sample of those. */
const COLD_SAMPLE_BLOCKS = 64;

interface SampledRecord {
  ts: number;
  format: string | null;
  frames: number | null;
}

/**
 * The newest `wanted` of the server's records in the window packed in cold blocks (db/queries/cold-events.ts),
 * newest blocks first until enough are found, each inflated only in the three columns the sample needs.
 */
async function coldSample(
  db: SqlRunner,
  scope: { server: string; from: number; to: number },
  wanted: number,
): Promise<SampledRecord[]> {
  const found: SampledRecord[] = [];
  let hour: number | null = null;
  for (const block of await coldBlocksIn(db, scope, 'newest', COLD_SAMPLE_BLOCKS)) {
    // Whole hours: an hour's blocks are not in time order with each other (a late event's block comes after).
    if (found.length >= wanted && block.hour !== hour) break;
    hour = block.hour;
    const { columns, rowCount, values } = unpackColumns(block.data, ['ts', 'sourceFormat', 'frames']);
    const column = (name: string) => values[columns.findIndex((spec) => spec.name === name)] ?? [];
    const [times, formats, frames] = [column('ts'), column('sourceFormat'), column('frames')];
    for (let r = 0; r < rowCount; r++) {
      const ts = Number(times[r]);
      if (ts < scope.from || ts >= scope.to) continue;
      found.push({ ts, format: (formats[r] ?? null) as string | null, frames: (frames[r] ?? null) as number | null });
    }
  }
  return found;
}
