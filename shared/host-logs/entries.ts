import type { LineError } from '../event.ts';

/**
 * The bounds every host-log reader keeps (issue 39): a line longer than MAX_LINE_CHARS is refused by number, not
 * read; an entry (a line and the continuation lines under it: a metadata block, a stack trace, an inspected object)
 * keeps at most MAX_ENTRY_LINES lines and MAX_ENTRY_CHARS characters, the rest counted and left out. A frame that
 * one line holds is kept whole up to the line bound: 4 MiB, as `lens tap` keeps frames.
 */
export const MAX_LINE_CHARS = 4 * 1024 * 1024;
export const MAX_ENTRY_LINES = 400;
export const MAX_ENTRY_CHARS = 4 * 1024 * 1024;

/** One entry of a log: its first line's number, its lines (continuations after the first), and what was cut. */
export interface Entry {
  line: number;
  lines: string[];
  /** Continuation lines left out past the bounds. */
  cutLines: number;
}

export type EntryStep = { entry: Entry } | { line: number; refused: LineError };

/**
 * Groups a log's lines into entries: a line that `starts` an entry begins one; any other line continues the entry
 * before it (or, before the first entry, is an entry of its own). `push` answers what the line completed.
 */
export class EntryAssembler {
  private current: Entry | null = null;
  private chars = 0;

  constructor(private readonly starts: (text: string) => boolean) {}

  push(line: number, text: string): EntryStep[] {
    if (text.length > MAX_LINE_CHARS) return [tooLong(line, text)];
    const current = this.current;
    if (current !== null && !this.starts(text)) {
      if (current.lines.length >= MAX_ENTRY_LINES || this.chars + text.length > MAX_ENTRY_CHARS) current.cutLines++;
      else {
        current.lines.push(text);
        this.chars += text.length;
      }
      return [];
    }
    this.current = { line, lines: [text], cutLines: 0 };
    this.chars = text.length;
    return current === null ? [] : [{ entry: current }];
  }

  end(): EntryStep[] {
    const current = this.current;
    this.current = null;
    return current === null ? [] : [{ entry: current }];
  }
}

/** A line past MAX_LINE_CHARS, refused by its number: said, not held. */
export function tooLong(line: number, text: string): { line: number; refused: LineError } {
  return {
    line,
    refused: {
      code: 'line_too_long',
      message: `the line is ${text.length} characters long; host-log readers read lines of at most ${MAX_LINE_CHARS}`,
    },
  };
}

/** The first line of an entry cut to what a server event keeps of it. */
export const EVENT_TEXT_CHARS = 1024;

export function eventText(text: string): string {
  return text.length > EVENT_TEXT_CHARS ? `${text.slice(0, EVENT_TEXT_CHARS)}…` : text;
}
