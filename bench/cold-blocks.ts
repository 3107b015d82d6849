/**
 * What cold events would weigh in column blocks (issue 41 item 1, docs/adr/0021-cold-events-in-blocks.md), measured
 * before any compaction is built: a store filled at the density of 10M events a day (BENCH_COLD_HOURS hours of it,
 * default 1), its events read back a server and hour at a time and packed (shared/column-block.ts) in each variant
 * below, the blocks written to a scratch SQLite file to count their bytes on disk. Printed beside today's bytes per
 * event of the row and its indexes, the line blocks of ADR 5 and the rest of the store, and the NDJSON; then the
 * steady state of a day once everything past the hot window is in blocks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { decodeBlock } from '../db/body-codec.ts';
import { EVENT_BLOCK_COLUMNS, LINE_COLUMN } from '../db/cold-block.ts';
import { EVENT_COLUMNS } from '../db/event-row.ts';
import { openStore, type StoreConfig } from '../db/store.ts';
import {
  type Cell,
  type ColumnSpec,
  type Compression,
  columnSections,
  compress,
  packColumns,
  unpackColumns,
} from '../shared/column-block.ts';
import { fillStore } from './fill.ts';
import { storeParts } from './store-bytes.ts';
import { median, printTable } from './support.ts';

const HOURS = Number(process.env.BENCH_COLD_HOURS ?? 1);
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const SPACING_MS = DAY_MS / 10_000_000;
const START = Date.parse('2026-11-02T00:00:00Z');
/** The defaults the steady state is figured with: `--hot-window 48h` (issue 41) and `--retain-events 30d`. */
const HOT_WINDOW_MS = 2 * DAY_MS;
const RETAIN_EVENTS_MS = 30 * DAY_MS;

/** Where an event's line is kept once it is cold: in its column block, or left in event_bodies (ADR 5). */
type Lines = 'in the block' | 'in event_bodies';

interface Variant {
  compression: Compression;
  lines: Lines;
  /** Rows a block at most: a server's hour is cut into parts this long (Infinity: a block a server and hour). */
  maxRows: number;
}

const VARIANTS: Variant[] = (['in the block', 'in event_bodies'] as Lines[]).flatMap((lines) =>
  (['deflate', 'brotli'] as Compression[]).flatMap((compression) =>
    [Number.POSITIVE_INFINITY, 4096].map((maxRows) => ({ compression, lines, maxRows })),
  ),
);

/** The columns a read of a (client, server) partition or an identity's sends filters a block on. */
const FIND_COLUMNS = ['ts', 'client', 'identity'];

const BODY_REFS: ColumnSpec[] = [
  { name: 'bodyBlock', kind: 'delta' },
  { name: 'bodyLine', kind: 'delta' },
];

interface Tally {
  encodeMs: number;
  decodeMs: number;
  /** Milliseconds to unpack each block whole: what reading one cold event pays. */
  blockDecodeMs: number[];
  /** Milliseconds to unpack a block's FIND_COLUMNS: what finding a client's or an identity's rows in it pays. */
  blockFindMs: number[];
  /** Each column's bytes, compressed alone (the variant's compression, a block a server and hour). */
  columnBytes: Map<string, number>;
}

export async function benchColdBlocks(config: StoreConfig): Promise<void> {
  const events = Math.round((HOURS * HOUR_MS) / SPACING_MS);
  const store = await openStore(config);
  const filled = await fillStore(store, events, START, SPACING_MS);
  await store.close();
  console.log(
    `cold blocks: ${events.toLocaleString('en-US')} events over ${HOURS} h (10M a day's density) ingested and folded in ${filled.seconds.toFixed(0)} s`,
  );
  const today = storeParts(config.dataDir);
  const tableBytes = (table: string) =>
    today.parts.filter((part) => part.table === table).reduce((n, part) => n + part.bytes, 0);
  const rowBytes = tableBytes('events') / events;
  const lineBytes = tableBytes('event_bodies') / events;
  const restBytes = today.total / events - rowBytes - lineBytes;
  const restParts = today.parts.filter((part) => part.table !== 'events' && part.table !== 'event_bodies');

  const scratch = mkdtempSync(join(tmpdir(), 'lens-cold-'));
  try {
    const blocks = new Database(join(scratch, 'blocks.sqlite'));
    const tallies = VARIANTS.map((_, v) => {
      blocks.exec(`CREATE TABLE blocks_${v} (id INTEGER PRIMARY KEY, server TEXT NOT NULL, hour INTEGER NOT NULL,
        first_ts INTEGER NOT NULL, last_ts INTEGER NOT NULL, rows INTEGER NOT NULL, data BLOB NOT NULL);
        CREATE INDEX blocks_${v}_idx ON blocks_${v} (server, hour, first_ts)`);
      return { encodeMs: 0, decodeMs: 0, blockDecodeMs: [], blockFindMs: [], columnBytes: new Map() } as Tally;
    });
    const source = new Database(join(config.dataDir, 'lens.sqlite'), { readonly: true });
    for (const { server, hour } of source
      .prepare(`SELECT DISTINCT server, ts / ${HOUR_MS} AS hour FROM events ORDER BY 1, 2`)
      .all() as { server: string; hour: number }[]) {
      const rows = serverHour(source, server, hour);
      VARIANTS.forEach((variant, v) => {
        packServerHour(blocks, v, variant, tallies[v] as Tally, server, hour, rows);
      });
    }
    source.close();
    const onDisk = VARIANTS.map((_, v) => {
      const bytes = (name: string) =>
        (blocks.prepare('SELECT sum(pgsize) AS n FROM dbstat WHERE name = ?').get(name) as { n: number }).n / events;
      return { blocks: bytes(`blocks_${v}`), index: bytes(`blocks_${v}_idx`) };
    });
    blocks.close();
    report({ events, ndjson: filled.ndjsonBytes / events, rowBytes, lineBytes, restBytes, tallies, onDisk });
    const largest = restParts.slice(0, 8).map((part) => `${part.name} ${(part.bytes / events).toFixed(1)}`);
    const free = ((today.free ?? 0) / events).toFixed(1);
    console.log(`  the rest of the store's largest parts, B/event: ${largest.join(', ')}; free pages ${free}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A server's events of one hour, in time order, each with its line and its place in event_bodies. */
function serverHour(source: Database.Database, server: string, hour: number): Record<string, Cell>[] {
  const columns = [
    'seq',
    'identity',
    'partner',
    'blocked_by AS blockedBy',
    ...EVENT_COLUMNS.map(([field, column]) => `${column} AS ${field}`),
    'body_block AS bodyBlock',
    'body_line AS bodyLine',
    'event_bodies.data AS bodyData',
  ];
  const rows = source
    .prepare(`SELECT ${columns.join(', ')} FROM events JOIN event_bodies ON event_bodies.id = events.body_block
      WHERE server = ? AND ts >= ? AND ts < ? ORDER BY ts, seq`)
    .all(server, hour * HOUR_MS, (hour + 1) * HOUR_MS) as Record<string, Cell>[];
  const lines = new Map<number, string[]>();
  for (const row of rows) {
    const block = row.bodyBlock as number;
    let blockLines = lines.get(block);
    if (blockLines === undefined) {
      blockLines = decodeBlock(row.bodyData as Uint8Array);
      lines.set(block, blockLines);
    }
    row.line = blockLines[row.bodyLine as number] ?? null;
    delete row.bodyData;
  }
  return rows;
}

function packServerHour(
  blocks: Database.Database,
  v: number,
  variant: Variant,
  tally: Tally,
  server: string,
  hour: number,
  rows: readonly Record<string, Cell>[],
): void {
  const columns = [...EVENT_BLOCK_COLUMNS, ...(variant.lines === 'in the block' ? [LINE_COLUMN] : BODY_REFS)];
  const insert = blocks.prepare(
    `INSERT INTO blocks_${v} (server, hour, first_ts, last_ts, rows, data) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const step = Math.min(variant.maxRows, Math.max(rows.length, 1));
  for (let at = 0; at < rows.length; at += step) {
    const part = rows.slice(at, at + variant.maxRows);
    let began = performance.now();
    const block = packColumns(columns, part, variant.compression);
    tally.encodeMs += performance.now() - began;
    began = performance.now();
    unpackColumns(block);
    const decodeMs = performance.now() - began;
    tally.decodeMs += decodeMs;
    tally.blockDecodeMs.push(decodeMs);
    began = performance.now();
    unpackColumns(block, FIND_COLUMNS);
    tally.blockFindMs.push(performance.now() - began);
    insert.run(server, hour, part[0]?.ts, part.at(-1)?.ts, part.length, block);
  }
  if (variant.maxRows !== Number.POSITIVE_INFINITY) return;
  columnSections(columns, rows).forEach((section, c) => {
    const name = columns[c]?.name as string;
    tally.columnBytes.set(name, (tally.columnBytes.get(name) ?? 0) + compress(section, variant.compression).byteLength);
  });
}

interface Measured {
  events: number;
  ndjson: number;
  rowBytes: number;
  lineBytes: number;
  restBytes: number;
  tallies: Tally[];
  onDisk: { blocks: number; index: number }[];
}

function report({ events, ndjson, rowBytes, lineBytes, restBytes, tallies, onDisk }: Measured): void {
  const b = (n: number) => n.toFixed(1);
  const hotShare = HOT_WINDOW_MS / RETAIN_EVENTS_MS;
  console.log(
    `today, B/event: the events row and its indexes ${b(rowBytes)}, line blocks (ADR 5) ${b(lineBytes)}, the rest of the store ${b(restBytes)} (counts, identity hours, gate, storms, denials, free pages); NDJSON ${b(ndjson)}`,
  );
  console.log(
    `cold blocks, B/event on disk, and what a day weighs once compacted: ${HOT_WINDOW_MS / HOUR_MS} h hot of ${RETAIN_EVENTS_MS / DAY_MS} days kept (${(hotShare * 100).toFixed(1)} % in rows), the rest of the store as today`,
  );
  printTable(
    [
      'lines',
      'compression',
      'rows a block',
      'blocks',
      'block index',
      'encode µs/ev',
      'decode µs/ev',
      'a block ms',
      'its ts, client, identity ms',
      'a day B/ev',
    ],
    VARIANTS.map((variant, v) => {
      const tally = tallies[v] as Tally;
      const disk = onDisk[v] as { blocks: number; index: number };
      const cold = disk.blocks + disk.index + (variant.lines === 'in event_bodies' ? lineBytes : 0);
      const day = hotShare * (rowBytes + lineBytes) + (1 - hotShare) * cold + restBytes;
      return [
        variant.lines,
        variant.compression,
        variant.maxRows === Number.POSITIVE_INFINITY ? 'a server-hour' : String(variant.maxRows),
        b(disk.blocks),
        b(disk.index),
        b((tally.encodeMs * 1000) / events),
        b((tally.decodeMs * 1000) / events),
        b(median(tally.blockDecodeMs)),
        b(median(tally.blockFindMs)),
        b(day),
      ];
    }),
  );
  VARIANTS.forEach((variant, v) => {
    if (variant.maxRows !== Number.POSITIVE_INFINITY || variant.lines !== 'in the block') return;
    const columns = [...(tallies[v] as Tally).columnBytes].sort((x, y) => y[1] - x[1]);
    const shown = columns.slice(0, 10).map(([name, bytes]) => `${name} ${b(bytes / events)}`);
    const rest = columns.slice(10).reduce((n, [, bytes]) => n + bytes, 0) / events;
    console.log(
      `  ${variant.compression}, each column compressed alone, B/event: ${shown.join(', ')}, ${columns.length - 10} more ${b(rest)}`,
    );
  });
}
