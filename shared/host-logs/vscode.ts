import type { Frame } from '../event.ts';
import { localTime } from './clock.ts';
import { type Entry, EntryAssembler, eventText } from './entries.ts';
import { Connection, type Place, RecordWriter } from './records.ts';
import type { HostLogOptions, HostLogReader, HostRead } from './types.ts';

/**
 * VS Code's MCP output channel, one per server (FORMATS.md "VS Code"): `YYYY-MM-DD HH:MM:SS.mmm [level] msg` in
 * local time without a zone, read in `timeZone` (the operator's `--tz` / `?tz=`, else this process's zone; said in
 * `notes`). Frames (`[editor -> server] {json}`, `[server -> editor] {json}`; 2025-03: `[Client Says]` /
 * `[Server Says]`) only at the channel's debug or trace level; at the default level failures are prose ("Connection
 * state: Error Process exited with code 243"), kept as server events, and the log shows no request at all (said).
 * A connection starts at "Starting server NAME" or "Connection state: Starting"; ids pair within it.
 */
const HEAD = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}) \[(trace|debug|info|warning|error)\] ?(.*)$/s;
const FRAME = /^\[(editor -> server|server -> editor|Client Says|Server Says)\] (.*)$/s;
const STARTING = /^(?:Starting server (?!from )(.+)|Connection state: Starting)$/;
const ENDED = /^(?:Connection state: (?:Error|Stopped)|Server exited)/;
const EXIT_CODE = /exited with code (-?\d+)/i;

export class VsCodeReader implements HostLogReader {
  private readonly entries = new EntryAssembler((text) => HEAD.test(text));
  private readonly out = new RecordWriter('vscode', () => true);
  private readonly zone: string;
  private connection: Connection | null = null;
  private server: string;
  private lastAt: number;
  private frames = 0;
  private connections = 0;

  constructor(private readonly options: HostLogOptions) {
    this.zone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    this.server = options.server ?? 'unknown';
    this.lastAt = options.start ?? Date.now();
  }

  push(line: number, text: string): HostRead[] {
    return this.entries.push(line, text).flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
  }

  end(): HostRead[] {
    const reads = this.entries.end().flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
    if (this.connection !== null) reads.push(...this.connection.close(this.connection.ended));
    return reads;
  }

  notes(): string[] {
    const notes = [
      `local times read in the zone ${this.zone}${this.options.timeZone === undefined ? ' (this server’s own)' : ''}`,
    ];
    if (this.frames === 0) {
      notes.push(
        'the channel logs no frames (its level is above Debug): no request or outcome is shown, only failures in ' +
          'prose; set "MCP: <server>" output to Debug to log each request',
      );
    }
    return notes;
  }

  private entry(entry: Entry): HostRead[] {
    const first = entry.lines[0] as string;
    const head = HEAD.exec(first);
    const at = head === null ? this.lastAt : (localTime(head[1] as string, this.zone) ?? this.lastAt);
    this.lastAt = at;
    const msg = [head === null ? first : (head[3] as string), ...entry.lines.slice(1)].join('\n');
    const place: Place = { line: entry.line, at, text: first };
    const starting = STARTING.exec(msg);
    const reads: HostRead[] = [];
    if (starting !== null) {
      if (starting[1] !== undefined && this.options.server === undefined) this.server = starting[1];
      if (this.connection?.seen === true || this.connection?.ended === true || starting[1] !== undefined) {
        reads.push(...(this.connection?.close(true) ?? []));
        this.connection = null;
      }
    }
    const frame = FRAME.exec(msg);
    const parsed = frame === null ? null : frameOf(frame[2] as string);
    if (frame !== null && parsed !== null) {
      this.frames++;
      const sender = frame[1] === 'editor -> server' || frame[1] === 'Client Says' ? 'client' : 'server';
      return [...reads, ...this.current().message(sender, parsed, place)];
    }
    const facts: Record<string, unknown> = { text: eventText(msg.split('\n')[0] as string), level: head?.[2] };
    if (entry.lines.length > 1) facts.lines = entry.lines.length;
    if (entry.cutLines > 0) facts.cutLines = entry.cutLines;
    const exit = EXIT_CODE.exec(msg);
    if (exit !== null) facts.exit = { code: Number(exit[1]), signal: null };
    const connection = this.current();
    reads.push(this.out.serverEvent(connection.parties, place, facts));
    if (ENDED.test(msg)) connection.ended = true;
    return reads;
  }

  private current(): Connection {
    if (this.connection === null) {
      this.connections++;
      const client = this.options.client ?? 'vscode';
      const session = `vscode:${this.server}:${this.connections}`;
      this.connection = new Connection(this.out, { client, server: this.server, session });
    }
    return this.connection;
  }
}

function frameOf(text: string): Frame | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Frame) : null;
  } catch {
    return null;
  }
}
