import type { FieldWarning, LineError } from '../event.ts';

/** What names what a host's or bridge's log cannot say of itself. */
export interface HostLogOptions {
  /** The server of every record (`--server`, `?server=`); else what the log or its file name says. */
  server?: string;
  /** The host (`--client`, `?client=`); else the file name's host, or the bridge's name. */
  client?: string;
  /** Epoch ms that a log writing no times is stamped from (`--start`, `?start=`); default: now. */
  start?: number;
  /** The IANA zone of a log's local times (`--tz`, `?tz=`); default: this process's zone. */
  timeZone?: string;
  /** The file's name (`mcp-server-NAME.log` names its server; `mcp.log` is Claude Desktop's combined log). */
  fileName?: string;
}

/** One record read from a host log, with the line it starts at, or a line the reader could not take. */
export type HostRead =
  | { line: number; value: Record<string, unknown>; warnings: FieldWarning[] }
  | { line: number; refused: LineError };

/**
 * A reader of one log, fed its lines in order. Host logs are read whole, not line by line: a request and its answer
 * are lines apart, and an entry spans lines. `push` answers the records the line completed; `end` the rest, once the
 * log is over; `notes` what the reader has to say of the log as a whole (its blind spots, the zone it read).
 */
export interface HostLogReader {
  push(line: number, text: string): HostRead[];
  end(): HostRead[];
  notes(): string[];
}
