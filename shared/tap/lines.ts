import { type FrameSummary, TopLevelScanner } from './top-level.ts';

/**
 * One line of a byte stream: its text when it fit the bound, else what the recorder could keep of it without holding
 * it (a frame's top-level summary, or the first bytes of a stderr line).
 */
export type Line =
  | { text: string; bytes: number }
  | { bytes: number; summary: FrameSummary }
  | { bytes: number; head: string };

const NEWLINE = 0x0a;

/**
 * Gathers one message's bytes (a line, an HTTP body, an SSE event's data). Up to `keepBytes` they are kept; past that
 * they are never assembled: read for their top-level summary (`over: 'summary'`), or their first `keepBytes` kept
 * (`over: 'head'`), then let go, so memory stays bounded whatever a peer writes.
 */
export class Collector {
  private parts: Uint8Array[] = [];
  private size = 0;
  private scanner: TopLevelScanner | null = null;
  private head: string | null = null;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly keepBytes: number,
    private readonly over: 'summary' | 'head',
  ) {}

  get bytes(): number {
    return this.size;
  }

  push(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.size += piece.length;
    if (this.scanner !== null) {
      this.scanner.push(piece);
      return;
    }
    if (this.head !== null) return;
    if (this.size <= this.keepBytes) {
      this.parts.push(piece);
      return;
    }
    if (this.over === 'summary') {
      this.scanner = new TopLevelScanner();
      for (const part of this.parts) this.scanner.push(part);
      this.scanner.push(piece);
    } else {
      this.head = this.decoder.decode(joined([...this.parts, piece]).subarray(0, this.keepBytes));
    }
    this.parts = [];
  }

  /** What was gathered (null when it was blank), and a fresh start. */
  finish(): Line | null {
    const bytes = this.size;
    const { parts, scanner, head } = this;
    this.parts = [];
    this.size = 0;
    this.scanner = null;
    this.head = null;
    if (scanner !== null) return { bytes, summary: scanner.summary() };
    if (head !== null) return { bytes, head };
    const text = this.decoder.decode(joined(parts)).replace(/\r$/, '');
    return text.trim() === '' ? null : { text, bytes };
  }
}

/**
 * Splits a byte stream at newlines, as MCP's stdio transport frames messages (a trailing `\r` is dropped, as the
 * SDKs drop it; blank lines are skipped), each line gathered by a `Collector`.
 */
export class LineSplitter {
  private readonly line: Collector;

  constructor(keepBytes: number, over: 'summary' | 'head') {
    this.line = new Collector(keepBytes, over);
  }

  push(chunk: Uint8Array): Line[] {
    const lines: Line[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.line.push(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return lines;
      const line = this.line.finish();
      if (line !== null) lines.push(line);
      start = newline + 1;
    }
  }

  /** The last line, when the stream ended without its newline (a stderr line cut short by a crash). */
  end(): Line | null {
    return this.line.bytes === 0 ? null : this.line.finish();
  }
}

function joined(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const all = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}
