import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { CliError } from './cli-error.ts';

export interface FileLine {
  /** 1-based line number in the file. */
  line: number;
  /** Null for a line that is not valid UTF-8: the reader says so and goes on, the caller decides what it costs. */
  text: string | null;
  /** Byte offset just past this line's newline: where reading resumes after it. */
  end: number;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Streams the non-blank lines of a file in constant memory. It splits on the newline byte, which never occurs inside
 * a multi-byte UTF-8 sequence, so byte offsets come for free and each line can be decoded strictly.
 */
export interface ReadOptions {
  startByte?: number;
  startLine?: number;
  /** Read up to this byte (exclusive): a log still being written is read as it was when shipping began. */
  endByte?: number;
  /**
   * A last line with no newline may still be being written: a shipper leaves it for the next run unless it is
   * already a whole JSON value (a file that simply lacks its final newline).
   */
  holdBackPartial?: boolean;
}

export async function* readLines(path: string, options: ReadOptions = {}): AsyncGenerator<FileLine> {
  const { startByte = 0, startLine = 1, endByte, holdBackPartial = false } = options;
  let pending: Buffer = Buffer.alloc(0);
  let offset = startByte;
  let line = startLine - 1;
  if (!isGzip(path) && endByte !== undefined && endByte <= startByte) return;
  const end = endByte === undefined ? undefined : endByte - 1;
  const stream = isGzip(path)
    ? createReadStream(path, { highWaterMark: 1 << 20 }).pipe(createGunzip())
    : createReadStream(path, { start: startByte, end, highWaterMark: 1 << 20 });
  // A gzip file is read from its start; offsets count its decompressed bytes, so those before startByte are skipped.
  let skip = isGzip(path) ? startByte : 0;
  try {
    for await (let chunk of stream as AsyncIterable<Buffer>) {
      if (skip > 0) {
        const skipped = Math.min(skip, chunk.length);
        skip -= skipped;
        chunk = chunk.subarray(skipped);
        if (chunk.length === 0) continue;
      }
      let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      let from = 0;
      for (let nl = data.indexOf(10, from); nl !== -1; nl = data.indexOf(10, from)) {
        line++;
        offset += nl + 1 - from;
        const text = decode(data.subarray(from, nl));
        if (text === null || text.trim().length > 0) yield { line, text, end: offset };
        from = nl + 1;
      }
      pending = data.subarray(from);
      data = pending;
    }
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CliError(`cannot read ${path}: ${detail}`);
  }
  if (pending.length > 0) {
    const text = decode(pending);
    if (holdBackPartial && !isGzip(path) && (text === null || !isWholeJson(text))) return;
    line++;
    offset += pending.length;
    if (text === null || text.trim().length > 0) yield { line, text, end: offset };
  }
}

/**
 * A rotated, compressed log (`access.log.2.gz`): read through gunzip. Such a file is complete, so `endByte` (the
 * size when shipping began) and `holdBackPartial` do not apply to it.
 */
export function isGzip(path: string): boolean {
  return path.toLowerCase().endsWith('.gz');
}

function isWholeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function decode(bytes: Buffer): string | null {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return null;
  }
  // TextDecoder drops a leading byte-order mark itself; a CR before the newline is a Windows line ending.
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
