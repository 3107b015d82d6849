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
 * Splits a byte stream at newlines, as MCP's stdio transport frames messages (a trailing `\r` is dropped, as the
 * SDKs drop it; blank lines are skipped). A line longer than `keepBytes` is never assembled: its bytes are read for
 * their summary (`over: 'summary'`) or their first `keepBytes` are kept (`over: 'head'`), then let go, so memory
 * stays bounded whatever a peer writes.
 */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private scanner: TopLevelScanner | null = null;
  private head: string | null = null;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly keepBytes: number,
    private readonly over: 'summary' | 'head',
  ) {}

  push(chunk: Uint8Array): Line[] {
    const lines: Line[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.take(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return lines;
      const line = this.finish();
      if (line !== null) lines.push(line);
      start = newline + 1;
    }
  }

  /** The last line, when the stream ended without its newline (a stderr line cut short by a crash). */
  end(): Line | null {
    return this.size === 0 ? null : this.finish();
  }

  private take(piece: Uint8Array): void {
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
      const kept = joined([...this.parts, piece]).subarray(0, this.keepBytes);
      this.head = this.decoder.decode(kept);
    }
    this.parts = [];
  }

  private finish(): Line | null {
    const bytes = this.size;
    const parts = this.parts;
    const scanner = this.scanner;
    const head = this.head;
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
