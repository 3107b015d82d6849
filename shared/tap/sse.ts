import { Collector, type Line } from './lines.ts';

const NEWLINE = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const DATA = [0x64, 0x61, 0x74, 0x61, 0x3a]; // "data:"

/**
 * Reads a `text/event-stream` body as it streams (the WHATWG event-stream format Streamable HTTP answers with): each
 * event's `data` lines, joined by newlines, are one JSON-RPC message. Other fields (`event`, `id`, `retry`, comments)
 * carry none and are skipped. The data is gathered by a `Collector`, so a huge event costs no more than its summary.
 */
export class SseReader {
  private readonly data: Collector;
  /** The start of the current line, until it shows whether it is a `data:` line. */
  private prefix: number[] = [];
  private mode: 'start' | 'data' | 'skip' = 'start';
  private dataLines = 0;
  private skipSpace = false;

  constructor(keepBytes: number) {
    this.data = new Collector(keepBytes, 'summary');
  }

  /** The events' data that this chunk completed. */
  push(chunk: Uint8Array): Line[] {
    const done: Line[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.mode === 'start') {
        const byte = chunk[i++] as number;
        if (byte === NEWLINE) {
          this.endLine(done);
          continue;
        }
        this.prefix.push(byte);
        if (this.prefix.length === DATA.length) this.decide();
        continue;
      }
      const newline = chunk.indexOf(NEWLINE, i);
      const end = newline === -1 ? chunk.length : newline;
      if (this.mode === 'data') {
        if (this.skipSpace && i < end) {
          if (chunk[i] === SPACE) i++;
          this.skipSpace = false;
        }
        this.data.push(chunk.subarray(i, end));
      }
      if (newline === -1) return done;
      i = newline + 1;
      this.endLine(done);
    }
    return done;
  }

  /** Whether the line begun is a `data:` line: then its value (after one optional space) is part of the data. */
  private decide(): void {
    const isData = this.prefix.length === DATA.length && this.prefix.every((byte, at) => byte === DATA[at]);
    this.prefix = [];
    if (!isData) {
      this.mode = 'skip';
      return;
    }
    this.mode = 'data';
    if (this.dataLines > 0) this.data.push(new Uint8Array([NEWLINE]));
    this.dataLines++;
    this.skipSpace = true;
  }

  private endLine(done: Line[]): void {
    // A short line (fewer bytes than "data:") is a blank line, which ends the event, or another field.
    const blank =
      this.mode === 'start' && (this.prefix.length === 0 || (this.prefix.length === 1 && this.prefix[0] === CR));
    this.prefix = [];
    this.mode = 'start';
    this.skipSpace = false;
    if (!blank) return;
    if (this.dataLines > 0) {
      const line = this.data.finish();
      if (line !== null) done.push(line);
    }
    this.dataLines = 0;
  }
}
