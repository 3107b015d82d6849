import { brotliCompress, brotliDecompressSync, constants, deflateRaw, inflateRawSync } from 'node:zlib';

/**
 * Rows laid out column by column and compressed as one block: the form of cold events (issue 41 item 1,
 * docs/adr/0021-cold-events-in-blocks.md). A column's values sit side by side, each column in the encoding its
 * values suit, so that the compressor sees runs of like values:
 * - `delta`: integers (times, sequence numbers), each the difference from the column's last non-null value;
 * - `dict`: few distinct values (names, statuses, codes, flags, digests), a dictionary of them and an index a row;
 * - `text`: values mostly distinct (event ids, keys, the lines), each after the bytes it shares with the one before.
 * The block names its columns, so that a reader of an older block finds a column added since missing, not shifted.
 */
export type ColumnKind = 'delta' | 'dict' | 'text';

export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
}

/** What a cell holds: `delta` columns integers, `text` columns strings, `dict` columns any of them or bytes. */
export type Cell = string | number | Uint8Array | null;

/** A decoded block: its columns and their values, `values[c][r]` being row r of column c. */
export interface ColumnValues {
  columns: ColumnSpec[];
  rowCount: number;
  values: Cell[][];
}

export type Compression = 'deflate' | 'brotli';

/**
 * A delta column's values stay within ±2^51, so that a difference and its zigzag form stay exact in a double: epoch
 * milliseconds are ~2^41.
 */
const DELTA_LIMIT = 2 ** 51;
const KINDS: readonly ColumnKind[] = ['delta', 'dict', 'text'];
/** The first byte of a block written now: its compression, its text columns in row groups (TEXT_GROUP_ROWS). */
const FORMAT: Record<Compression, number> = { deflate: 3, brotli: 4 };

/** What each first byte says of a block; those written before the text groups (1, 2) still read. */
const READ_FORMATS = new Map<number, { inflate: (packed: Uint8Array) => Buffer; grouped: boolean }>([
  [1, { inflate: inflateRawSync, grouped: false }],
  [2, { inflate: brotliDecompressSync, grouped: false }],
  [FORMAT.deflate, { inflate: inflateRawSync, grouped: true }],
  [FORMAT.brotli, { inflate: brotliDecompressSync, grouped: true }],
]);

/**
 * Rows a text column compresses together. A page of the events list keeps a few events of each of a fleet's blocks
 * (the newest page holds a server's newest two or three), and each needs its line: inflating a block's whole line
 * column (~1.5 MB at 10M a day) for them was half of such a read. A group is inflated only where a row is asked of
 * it. Measured over 100k events at 10M a day (25 servers' blocks), CPU of the fleet's newest page, the page after a
 * cursor and the failures' page, against whole columns: 97, 73, 65 ms whole; 76, 51, 48 in groups of 1,024 rows
 * (60.4 B/event against 59.3); 70, 55, 45 in groups of 512 (61.4); 69, 45, 40 in groups of 256 (63.0).
 */
const TEXT_GROUP_ROWS = 1024;

/**
 * The block: a byte naming its format, the rows' count, the columns' count and the rows of a text group, then each
 * column's name, kind and values, the values compressed alone (a text column's a group at a time), so that a read
 * inflates only the columns and groups it asks for. Alone or in one stream, a block weighs within a few percent
 * either way (measured: docs/adr/0021-cold-events-in-blocks.md). The compression runs on libuv's thread pool: the
 * thread that serves requests only lays the values out, where brotli at quality 9 held it ~0.5 s a block of 4,096
 * events (compaction, api/services/compaction.ts).
 */
export async function packColumns(
  columns: readonly ColumnSpec[],
  rows: readonly Record<string, Cell>[],
  compression: Compression,
): Promise<Buffer> {
  const sections: Buffer[] = [];
  let next = 0;
  // Each section laid out just before it is compressed: the event loop gets a turn between them (a block's ~41
  // took ~35 ms together), and only the sections being compressed are held uncompressed.
  const compressNext = async (): Promise<void> => {
    for (let c = next++; c < columns.length; c = next++) {
      sections[c] = await packedColumn(columns[c] as ColumnSpec, rows, compression);
    }
  };
  await Promise.all(Array.from({ length: SECTIONS_AT_ONCE }, compressNext));
  return assemble(columns, rows.length, compression, sections);
}

/** A column's section: its values compressed, or a text column's groups, each compressed, one after the other. */
async function packedColumn(column: ColumnSpec, rows: readonly Record<string, Cell>[], compression: Compression) {
  if (column.kind !== 'text') return compressed(columnSection(column, rows), compression);
  const out = new Writer();
  for (let first = 0; first < rows.length; first += TEXT_GROUP_ROWS) {
    out.bytes(await compressed(columnSection(column, rows.slice(first, first + TEXT_GROUP_ROWS)), compression));
  }
  return out.done();
}

/**
 * Sections compressed at once. A brotli encoder holds its tables until the thread that serves requests closes it:
 * with the 4 MiB window it had then (32 MB of tables each, BROTLI_WINDOW_BITS), the ~41 sections of a block, all
 * started together, held ~30 MB more RSS than two at a time (a block of 4,096 events at 10M a day packed 10 times: peak 297 MB against 269), and
 * the machine it is measured on has two cores to compress on anyway.
 */
const SECTIONS_AT_ONCE = 2;

function compressed(section: Buffer, compression: Compression): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const done = (error: Error | null, packed: Buffer) => (error === null ? resolve(packed) : reject(error));
    if (compression === 'deflate') deflateRaw(section, DEFLATE_OPTIONS, done);
    else brotliCompress(section, brotliOptions(section), done);
  });
}

function assemble(
  columns: readonly ColumnSpec[],
  rowCount: number,
  compression: Compression,
  sections: readonly Buffer[],
): Buffer {
  const out = new Writer();
  out.byte(FORMAT[compression]);
  out.varint(rowCount);
  out.varint(columns.length);
  out.varint(TEXT_GROUP_ROWS);
  sections.forEach((section, c) => {
    const { name, kind } = columns[c] as ColumnSpec;
    out.byte(KINDS.indexOf(kind));
    out.bytes(Buffer.from(name, 'utf8'));
    out.bytes(section);
  });
  return out.done();
}

/**
 * Sections inflated by this process, by column name: what the tests hold a read's work to (a page of the events list
 * inflates none of the columns it does not show).
 */
export const inflatedSections = new Map<string, number>();

/**
 * A block's columns, or only those named in `only` (in the block's order); a column it does not hold is left out.
 * With `rows` (row numbers, ascending), only those rows: `rowCount` is then their number and `values[c][i]` is row
 * `rows[i]`. Every value is still walked (deltas and shared prefixes chain), but only the asked ones are made: a read
 * of a few events of a block costs its inflating, not 4,096 rows of strings.
 */
export function unpackColumns(block: Uint8Array, only?: readonly string[], rows?: readonly number[]): ColumnValues {
  const input = new Reader(block);
  const formatByte = input.byte();
  const format = READ_FORMATS.get(formatByte);
  if (format === undefined) throw new Error(`not a column block (format ${formatByte})`);
  const { inflate } = format;
  const rowCount = input.varint();
  const count = input.varint();
  const groupRows = format.grouped ? input.varint() : null;
  if (groupRows === 0) throw new Error('a text group of no rows');
  const picked = rows === undefined ? null : pickedRows(rows, rowCount);
  const columns: ColumnSpec[] = [];
  const values: Cell[][] = [];
  for (let c = 0; c < count; c++) {
    const kind = KINDS[input.byte()];
    if (kind === undefined) throw new Error('unknown column kind');
    const name = input.bytes().toString('utf8');
    const packed = input.bytes();
    if (only !== undefined && !only.includes(name)) continue;
    const inflated = (key: string, bytes: Uint8Array) => inflatedSection(block, name, key, () => inflate(bytes));
    if (kind === 'text' && groupRows !== null) {
      values.push(readTextGroups(new Reader(packed), inflated, rowCount, groupRows, picked));
    } else {
      const read = kind === 'delta' ? readDeltas : kind === 'dict' ? readDictionary : readTexts;
      values.push(readWhole(new Reader(inflated(name, packed)), (section) => read(section, rowCount, picked)));
    }
    columns.push({ name, kind });
  }
  if (!input.atEnd()) throw new Error('a column block holds more than its columns');
  return { columns, rowCount: picked === null ? rowCount : picked.length, values };
}

/** A section's values, read to its end: one that holds more than its rows is damaged, not read short. */
function readWhole(section: Reader, read: (section: Reader) => Cell[]): Cell[] {
  const values = read(section);
  if (!section.atEnd()) throw new Error('a column section holds more than its rows');
  return values;
}

/** A text column in row groups: only the groups that hold a picked row are inflated. */
function readTextGroups(
  groups: Reader,
  inflated: (key: string, packed: Uint8Array) => Buffer,
  rowCount: number,
  groupRows: number,
  picked: readonly number[] | null,
): Cell[] {
  const values: Cell[] = [];
  let next = 0;
  for (let first = 0; first < rowCount; first += groupRows) {
    const size = Math.min(groupRows, rowCount - first);
    const packed = groups.bytes();
    let inGroup: number[] | null = null;
    if (picked !== null) {
      inGroup = [];
      for (; next < picked.length && (picked[next] as number) < first + size; next++) {
        inGroup.push((picked[next] as number) - first);
      }
      if (inGroup.length === 0) continue;
    }
    const section = new Reader(inflated(String(first), packed));
    for (const value of readWhole(section, (group) => readTexts(group, size, inGroup))) values.push(value);
  }
  if (!groups.atEnd()) throw new Error('a column section holds more than its rows');
  return values;
}

/**
 * The sections a read has inflated, by block and column: a read asks a block for the same column several times (its
 * times, then the columns a filter tests, then those of the rows it keeps), and inflating was most of its cost. Held
 * by the block's bytes, weakly: they go when the read that holds the bytes is done, so nothing outlives it.
 */
const inflatedOf = new WeakMap<Uint8Array, Map<string, Buffer>>();

/** The block's section under `key` (a column, or a column's text group), inflated once. */
function inflatedSection(block: Uint8Array, column: string, key: string, inflate: () => Buffer): Buffer {
  let sections = inflatedOf.get(block);
  if (sections === undefined) {
    sections = new Map();
    inflatedOf.set(block, sections);
  }
  const place = `${column}\u0000${key}`;
  let section = sections.get(place);
  if (section === undefined) {
    inflatedSections.set(column, (inflatedSections.get(column) ?? 0) + 1);
    section = inflate();
    sections.set(place, section);
  }
  return section;
}

/** The rows asked for, checked: ascending, each once, each in the block. */
function pickedRows(rows: readonly number[], rowCount: number): readonly number[] {
  rows.forEach((row, i) => {
    if (!Number.isInteger(row) || row < 0 || row >= rowCount || (i > 0 && row <= (rows[i - 1] as number))) {
      throw new RangeError(`rows must ascend within the block's ${rowCount}`);
    }
  });
  return rows;
}

/**
 * Collects a column's values as its reader walks them: every row's, or only the picked rows'. The reader asks
 * `wants()` once a row, in order, and makes and `keep`s the value only when it answers true, so a value not picked
 * is never made.
 */
class Collector {
  readonly values: Cell[] = [];
  private row = 0;
  private next = 0;

  constructor(private readonly picked: readonly number[] | null) {}

  wants(): boolean {
    const row = this.row++;
    if (this.picked === null) return true;
    if (this.picked[this.next] !== row) return false;
    this.next++;
    return true;
  }

  keep(value: Cell): void {
    this.values.push(value);
  }
}

const DEFLATE_OPTIONS = { level: 9 };

/**
 * A 64 KiB window. At quality 9 brotli picks its match finder by the window: past 16 bits a hash of 2^15 buckets of
 * 256 entries (32 MB an encoder, allocated and faulted in for every section); at 16 bits or less a small forgetful
 * chain. A block's redundancy is local (a column of 4,096 rows, each value near its like), so the small window lost
 * nothing: compacting 100k events at 10M a day, 59.26 B/event against 59.42 with a 4 MiB window (22 bits), peak RSS
 * 220-234 MB against 278-284, CPU ~160 µs an event against ~210 (ADR 21, "Compaction's memory").
 */
const BROTLI_WINDOW_BITS = 16;

function brotliOptions(raw: Uint8Array) {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 9,
      [constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.byteLength,
    },
  };
}

/** A column's encoded values, uncompressed: what a block holds of it, compressed. */
function columnSection({ name, kind }: ColumnSpec, rows: readonly Record<string, Cell>[]): Buffer {
  const out = new Writer();
  const values = rows.map((row) => row[name] ?? null);
  if (kind === 'delta') writeDeltas(out, name, values);
  else if (kind === 'dict') writeDictionary(out, values);
  else writeTexts(out, name, values);
  return out.done();
}

function writeDeltas(out: Writer, name: string, values: readonly Cell[]): void {
  let last = 0;
  for (const value of values) {
    if (value === null) {
      out.varint(0);
      continue;
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > DELTA_LIMIT) {
      throw new Error(`column ${name}: ${String(value)} is no integer within ±2^51`);
    }
    const delta = value - last;
    out.varint((delta >= 0 ? delta * 2 : -delta * 2 - 1) + 1);
    last = value;
  }
}

const TAG = { null: 0, text: 1, number: 2, bytes: 3 } as const;

function writeDictionary(out: Writer, values: readonly Cell[]): void {
  const indexOf = new Map<string, number>();
  const entries: Cell[] = [];
  const indexes = values.map((value) => {
    const key = dictionaryKey(value);
    let index = indexOf.get(key);
    if (index === undefined) {
      index = entries.length;
      indexOf.set(key, index);
      entries.push(value);
    }
    return index;
  });
  out.varint(entries.length);
  for (const entry of entries) {
    if (entry === null) out.byte(TAG.null);
    else if (typeof entry === 'string') {
      out.byte(TAG.text);
      out.bytes(wellFormedUtf8(entry));
    } else if (typeof entry === 'number') {
      out.byte(TAG.number);
      out.float64(entry);
    } else {
      out.byte(TAG.bytes);
      out.bytes(entry);
    }
  }
  for (const index of indexes) out.varint(index);
}

function dictionaryKey(value: Cell): string {
  if (value === null) return 'z';
  if (typeof value === 'string') return `s${value}`;
  if (typeof value === 'number') return `n${Object.is(value, -0) ? '-0' : String(value)}`;
  return `b${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
}

function writeTexts(out: Writer, name: string, values: readonly Cell[]): void {
  let last: Buffer = Buffer.alloc(0);
  for (const value of values) {
    if (value === null) {
      out.varint(0);
      continue;
    }
    if (typeof value !== 'string') throw new Error(`column ${name}: ${String(value)} is no text`);
    const text = wellFormedUtf8(value);
    let shared = 0;
    const most = Math.min(text.byteLength, last.byteLength);
    while (shared < most && text[shared] === last[shared]) shared++;
    out.varint(shared + 1);
    out.bytes(text.subarray(shared));
    last = text;
  }
}

/** UTF-8 of a text; a lone surrogate has none (it would come back as U+FFFD), so it is refused, not changed. */
function wellFormedUtf8(text: string): Buffer {
  if (!text.isWellFormed()) throw new Error('a column block holds well-formed text only');
  return Buffer.from(text, 'utf8');
}

function readDeltas(input: Reader, rowCount: number, picked: readonly number[] | null): Cell[] {
  const out = new Collector(picked);
  let last = 0;
  for (let r = 0; r < rowCount; r++) {
    const coded = input.varint();
    if (coded !== 0) {
      const zigzag = coded - 1;
      last += zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2;
    }
    if (out.wants()) out.keep(coded === 0 ? null : last);
  }
  return out.values;
}

/**
 * A dictionary's entries are made only as a picked row first names them: a block's identities are thousands of
 * digests, of which a read of a few rows needs a few. A dictionary of at most 128 entries has an index of one byte a
 * row (a varint under 0x80), read where the picked rows are instead of walked: most columns are of a few values.
 */
function readDictionary(input: Reader, rowCount: number, picked: readonly number[] | null): Cell[] {
  const places = Array.from({ length: input.varint() }, () => input.skipEntry());
  const entries: (Cell | undefined)[] = new Array(places.length);
  const entry = (index: number): Cell => {
    if (index >= places.length) throw new Error('a dictionary index past its entries');
    let made = entries[index];
    if (made === undefined) {
      made = input.entryAt(places[index] as number);
      entries[index] = made;
    }
    return made;
  };
  if (places.length <= 0x80) {
    const indexes = input.view(rowCount);
    let most = 0;
    for (let r = 0; r < rowCount; r++) most = Math.max(most, indexes[r] as number);
    if (rowCount > 0 && most >= places.length) throw new Error('a dictionary index past its entries');
    const values: Cell[] = [];
    if (picked === null) for (let r = 0; r < rowCount; r++) values.push(entry(indexes[r] as number));
    else for (const row of picked) values.push(entry(indexes[row] as number));
    return values;
  }
  const out = new Collector(picked);
  for (let r = 0; r < rowCount; r++) {
    const index = input.varint();
    if (out.wants()) out.keep(entry(index));
    else if (index >= places.length) throw new Error('a dictionary index past its entries');
  }
  return out.values;
}

/** Each text is rebuilt in one growing buffer (its shared prefix stays in place); only the picked become strings. */
function readTexts(input: Reader, rowCount: number, picked: readonly number[] | null): Cell[] {
  const out = new Collector(picked);
  let text = Buffer.allocUnsafe(1024);
  let length = 0;
  for (let r = 0; r < rowCount; r++) {
    const coded = input.varint();
    if (coded === 0) {
      if (out.wants()) out.keep(null);
      continue;
    }
    const shared = coded - 1;
    if (shared > length) throw new Error('a text shares more than the one before holds');
    const rest = input.varint();
    if (shared + rest > text.byteLength) {
      const grown = Buffer.allocUnsafe(2 * (shared + rest));
      text.copy(grown, 0, 0, shared);
      text = grown;
    }
    input.copyTo(text, shared, rest);
    length = shared + rest;
    if (out.wants()) out.keep(text.toString('utf8', 0, length));
  }
  return out.values;
}

class Writer {
  private chunks: Buffer[] = [];
  private buffer = Buffer.allocUnsafe(4096);
  private at = 0;

  private room(n: number): void {
    if (this.at + n <= this.buffer.byteLength) return;
    this.chunks.push(this.buffer.subarray(0, this.at));
    this.buffer = Buffer.allocUnsafe(Math.max(4096, n));
    this.at = 0;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.at++] = value;
  }

  /** An unsigned integer up to 2^53, seven bits a byte, low bits first. */
  varint(value: number): void {
    this.room(8);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.at++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.at++] = rest;
  }

  float64(value: number): void {
    this.room(8);
    this.buffer.writeDoubleLE(value, this.at);
    this.at += 8;
  }

  /** Bytes after their length. */
  bytes(value: Uint8Array): void {
    this.varint(value.byteLength);
    this.room(value.byteLength);
    this.buffer.set(value, this.at);
    this.at += value.byteLength;
  }

  done(): Buffer {
    return Buffer.concat([...this.chunks, this.buffer.subarray(0, this.at)]);
  }
}

class Reader {
  private at = 0;
  private readonly data: Buffer;

  constructor(data: Uint8Array) {
    this.data = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }

  private need(n: number): void {
    if (this.at + n > this.data.byteLength) throw new Error('a column block ends early');
  }

  atEnd(): boolean {
    return this.at === this.data.byteLength;
  }

  /** A byte past the end reads undefined: checked so, not by a call a byte (a block is walked byte by byte). */
  byte(): number {
    const byte = this.data[this.at++];
    if (byte === undefined) throw new Error('a column block ends early');
    return byte;
  }

  varint(): number {
    const first = this.byte();
    if (first < 0x80) return first;
    let value = first & 0x7f;
    let scale = 0x80;
    for (;;) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
      if (scale > 2 ** 56) throw new Error('a varint too long');
    }
  }

  float64(): number {
    this.need(8);
    const value = this.data.readDoubleLE(this.at);
    this.at += 8;
    return value;
  }

  bytes(): Buffer {
    return this.view(this.varint());
  }

  /** The next `length` bytes copied into `target` at `offset`: a text's rest, without a view made of it. */
  copyTo(target: Buffer, offset: number, length: number): void {
    this.need(length);
    this.data.copy(target, offset, this.at, this.at + length);
    this.at += length;
  }

  /** The next `length` bytes, as a view of the block's. */
  view(length: number): Buffer {
    this.need(length);
    const value = this.data.subarray(this.at, this.at + length);
    this.at += length;
    return value;
  }

  private skip(length: number): void {
    this.need(length);
    this.at += length;
  }

  /** Steps over a dictionary entry (its tag, then its value), checked; answers where it starts. */
  skipEntry(): number {
    const start = this.at;
    const tag = this.byte();
    if (tag === TAG.text || tag === TAG.bytes) this.skip(this.varint());
    else if (tag === TAG.number) this.skip(8);
    else if (tag !== TAG.null) throw new Error(`unknown dictionary entry ${tag}`);
    return start;
  }

  /** The dictionary entry that starts at `place` (skipEntry's), read without moving on. */
  entryAt(place: number): Cell {
    const at = this.at;
    this.at = place;
    const tag = this.byte();
    const entry =
      tag === TAG.text
        ? this.bytes().toString('utf8')
        : tag === TAG.number
          ? this.float64()
          : tag === TAG.bytes
            ? new Uint8Array(this.bytes())
            : null;
    this.at = at;
    return entry;
  }
}
