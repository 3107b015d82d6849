import type { Frame } from '../event.ts';
import { serverOfFileName, utcTime } from './clock.ts';
import { EVENT_TEXT_CHARS, eventText, MAX_ENTRY_CHARS, MAX_ENTRY_LINES, MAX_LINE_CHARS, tooLong } from './entries.ts';
import { Connection, type Place, RecordWriter } from './records.ts';
import type { HostLogOptions, HostLogReader, HostRead } from './types.ts';

/**
 * Claude Desktop's per-server `mcp-server-NAME.log` and combined `mcp.log`, all three eras of their lines
 * (FORMATS.md "Claude Desktop"; its traps are this reader's tests):
 * - `TS [NAME] [LEVEL] msg` (per server) and `TS [LEVEL] [NAME] msg` (mcp.log, 2025+), told apart by which bracket
 *   holds a level; a line where both do (a server named `info`) takes the layout the log showed before, else the
 *   file name's; `TS [LEVEL] msg` (mcp.log, 2024) names its server only in lifecycle text, and its frames belong to
 *   the server last named;
 * - ` { metadata: undefined }` after a message (mid-2025 on) is dropped; a metadata block or a bare object over
 *   several lines is read up to its closing line, bounded (MAX_ENTRY_LINES, MAX_ENTRY_CHARS), the rest counted;
 * - `Message from client|server: {frame}`: the sender, not the kind. Frames pair by id within one connection of one
 *   server; a connection starts at "Initializing server..." (2024: "Attempting to connect to MCP server NAME"). A
 *   start line while the name's connection has not spoken yet is a second process under the same name: both are
 *   kept, a message goes to the one whose id space it fits, and their records say `hostlog.sharedName` (the log
 *   cannot tell two such processes' answers apart);
 * - a host `notifications/cancelled` ("MCP error -32001: Request timed out") makes its request a timeout; an answer
 *   after it is kept, as late;
 * - a line without a time outside a block is the server's stderr: consecutive ones are one server event.
 */
const TS = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z`;
const TWO_BRACKETS = new RegExp(`^(${TS}) \\[([^\\]]+)\\] \\[([^\\]]+)\\] ?(.*)$`, 's');
const ONE_BRACKET = new RegExp(`^(${TS}) \\[([^\\]]+)\\] ?(.*)$`, 's');
const LEVELS = new Set(['info', 'error', 'warn', 'warning', 'debug']);
const MESSAGE = /^Message from (client|server): (.*)$/s;
const SHORT_FORM = /^method="([^"]+)"(?: id=(\S+))?/;
const METADATA_NONE = / \{ metadata: undefined \}$/;
const STARTS = /^(?:Initializing server\.\.\.|Attempting to connect to MCP server (.+?)\.\.\.$)/;
const ENDS = /(?:transport closed|Shutting down server|disconnected|Server disconnected)/i;
const NAMED_2024 = /MCP server (.+?)(?:\.\.\.$|!$| disconnected| \(|:)|connection to server (.+?):/;
const EXIT_CODE = /exit(?:ed)? with code (-?\d+)/i;

type Layout = 'per-server' | 'combined';

interface Line {
  line: number;
  at: number;
  level: string;
  /** The server the line names; undefined for a 2024 line whose text names none. */
  name: string | undefined;
  msg: string;
  /** Continuation lines of a block under the message, and what was cut past the bounds. */
  block: string[];
  blockChars: number;
  cutLines: number;
  open: boolean;
}

interface Stderr {
  line: number;
  lines: string[];
}

export class ClaudeDesktopReader implements HostLogReader {
  private readonly out = new RecordWriter('claude-desktop', () => true);
  private layout: Layout | null;
  private readonly fileServer: string | undefined;
  private pending: Line | null = null;
  private stderr: Stderr | null = null;
  private lastAt: number;
  private lastName: string | undefined;
  /** Each server's live connections: one, or two while two processes share the name. */
  private readonly live = new Map<string, Connection[]>();
  private ambiguousLines = 0;
  private shared = 0;
  private unreadFrames = 0;

  constructor(private readonly options: HostLogOptions) {
    const base = options.fileName?.split(/[\\/]/).pop() ?? '';
    this.fileServer = serverOfFileName(options.fileName);
    this.layout = this.fileServer !== undefined ? 'per-server' : /^mcp\d*\.log/.test(base) ? 'combined' : null;
    this.lastAt = options.start ?? Date.now();
    this.lastName = this.fileServer;
  }

  push(line: number, text: string): HostRead[] {
    if (text.length > MAX_LINE_CHARS) return [tooLong(line, text)];
    const head = this.head(line, text);
    if (head === null) return this.continuation(line, text);
    const reads = [...this.flushStderr(), ...this.flushLine()];
    this.pending = head;
    if (!head.open) reads.push(...this.flushLine());
    return reads;
  }

  end(): HostRead[] {
    const reads = [...this.flushStderr(), ...this.flushLine()];
    for (const connections of this.live.values()) {
      for (const connection of connections) reads.push(...connection.close(connection.ended));
    }
    this.live.clear();
    return reads;
  }

  notes(): string[] {
    const notes: string[] = [];
    if (this.shared > 0) {
      notes.push(
        `${this.shared} time(s) two processes ran under one server name at once: their messages are told apart by ` +
          'id where they can be, and their records say sharedName (the log cannot tell which process answered)',
      );
    }
    if (this.ambiguousLines > 0) {
      notes.push(
        `${this.ambiguousLines} line(s) had a level in both brackets (a server named like a level): read in the ` +
          "log's layout",
      );
    }
    if (this.unreadFrames > 0) notes.push(`${this.unreadFrames} message(s) whose frame is no JSON kept as events`);
    return notes;
  }

  /** A line that starts an entry (it has a time), or null. */
  private head(line: number, text: string): Line | null {
    const two = TWO_BRACKETS.exec(text);
    const one = two === null ? ONE_BRACKET.exec(text) : null;
    if (two === null && one === null) return null;
    const at = utcTime((two ?? one)?.[1] as string) ?? this.lastAt;
    let level: string;
    let name: string | undefined;
    let msg: string;
    const layout = two === null ? null : this.layoutOf(two[2] as string, two[3] as string);
    if (two !== null && layout !== null) {
      [level, name] =
        layout === 'per-server' ? [two[3] as string, two[2] as string] : [two[2] as string, two[3] as string];
      msg = two[4] as string;
    } else {
      const bracket = (two?.[2] ?? one?.[2]) as string;
      if (!LEVELS.has(bracket.toLowerCase())) return null;
      level = bracket;
      msg = two === null ? (one?.[3] as string) : text.slice((two[1] as string).length + bracket.length + 4);
      name = NAMED_2024.exec(msg)
        ?.slice(1)
        .find((n) => n !== undefined);
      if (name !== undefined) this.lastName = name;
    }
    this.lastAt = at;
    if (name !== undefined && name !== this.lastName) this.lastName = name;
    const cleaned = msg.replace(METADATA_NONE, '');
    const open = opensBlock(cleaned);
    return { line, at, level, name, msg: cleaned, block: [], blockChars: 0, cutLines: 0, open };
  }

  /** Which bracket is the level: both are levels (a server named `info`) → the layout seen before, or the file's. */
  private layoutOf(first: string, second: string): Layout | null {
    const firstIsLevel = LEVELS.has(first.toLowerCase());
    const secondIsLevel = LEVELS.has(second.toLowerCase());
    if (firstIsLevel !== secondIsLevel) {
      this.layout = secondIsLevel ? 'per-server' : 'combined';
      return this.layout;
    }
    if (!firstIsLevel) return null;
    this.ambiguousLines++;
    return this.layout ?? 'per-server';
  }

  /** A line without a time: the open block's next line, or the server's stderr. */
  private continuation(line: number, text: string): HostRead[] {
    const pending = this.pending;
    if (pending?.open) {
      if (pending.block.length >= MAX_ENTRY_LINES || pending.blockChars + text.length > MAX_ENTRY_CHARS)
        pending.cutLines++;
      else {
        pending.block.push(text);
        pending.blockChars += text.length;
      }
      if (closesBlock(text)) pending.open = false;
      return pending.open ? [] : this.flushLine();
    }
    const reads = this.flushLine();
    if (this.stderr === null) this.stderr = { line, lines: [] };
    if (this.stderr.lines.length >= MAX_ENTRY_LINES)
      reads.push(...this.flushStderr(), ...this.continuation(line, text));
    else this.stderr.lines.push(text.length > EVENT_TEXT_CHARS ? `${text.slice(0, EVENT_TEXT_CHARS)}…` : text);
    return reads;
  }

  private flushStderr(): HostRead[] {
    const stderr = this.stderr;
    this.stderr = null;
    if (stderr === null) return [];
    const name = this.options.server ?? this.lastName ?? 'unknown';
    const place: Place = { line: stderr.line, at: this.lastAt, text: stderr.lines.join('\n') };
    const facts: Record<string, unknown> = { stderr: eventText(stderr.lines[0] as string) };
    if (stderr.lines.length > 1) facts.lines = stderr.lines.length;
    const exit = EXIT_CODE.exec(place.text);
    if (exit !== null) facts.exit = { code: Number(exit[1]), signal: null };
    return [this.out.serverEvent(this.current(name).parties, place, facts)];
  }

  private flushLine(): HostRead[] {
    const line = this.pending;
    this.pending = null;
    if (line === null) return [];
    const name = this.options.server ?? line.name ?? this.lastName ?? this.fileServer ?? 'unknown';
    const place: Place = { line: line.line, at: line.at, text: `${line.msg}\n${line.block.join('\n')}` };
    const message = MESSAGE.exec(line.msg);
    if (message !== null) {
      const frame = frameOf(message[2] as string);
      if (frame !== null) return this.route(name, message[1] as 'client' | 'server', frame, place);
      this.unreadFrames++;
    }
    const reads = STARTS.test(line.msg) ? this.start(name, line.line) : [];
    const facts: Record<string, unknown> = { text: eventText(line.msg), level: line.level };
    if (line.block.length > 0) facts.lines = line.block.length + 1;
    if (line.cutLines > 0) facts.cutLines = line.cutLines;
    const exit = EXIT_CODE.exec(line.msg);
    if (exit !== null) facts.exit = { code: Number(exit[1]), signal: null };
    reads.push(this.out.serverEvent(this.current(name).parties, place, facts));
    if (ENDS.test(line.msg)) for (const connection of this.live.get(name) ?? []) connection.ended = true;
    return reads;
  }

  /**
   * A start line: a restart ends the name's connections (what they left open is a timeout); on a connection still
   * silent, a second process joins it.
   */
  private start(name: string, line: number): HostRead[] {
    const live = this.live.get(name) ?? [];
    const fresh = this.connection(name, line);
    if (live.length > 0 && live.every((connection) => !connection.seen && !connection.ended)) {
      this.shared++;
      for (const connection of [...live, fresh]) connection.parties.facts = { sharedName: true };
      live.push(fresh);
      return [];
    }
    this.live.set(name, [fresh]);
    return live.flatMap((connection) => connection.close(true));
  }

  private route(name: string, sender: 'client' | 'server', frame: Frame, place: Place): HostRead[] {
    const reads: HostRead[] = [];
    const live = this.live.get(name) ?? [this.current(name)];
    const id = frame.id;
    const answers = 'result' in frame || 'error' in frame;
    const other = sender === 'client' ? 'server' : 'client';
    const cancelled = cancelledId(frame);
    const fits = (connection: Connection): boolean => {
      if (typeof id === 'string' || typeof id === 'number') {
        return answers ? connection.isOpen(other, id) : !connection.isOpen(sender, id);
      }
      return cancelled === undefined || connection.isOpen(sender, cancelled);
    };
    const connection = live.find(fits) ?? (live[0] as Connection);
    reads.push(...connection.message(sender, frame, place));
    return reads;
  }

  /** The name's connection records go to: its first live one, or one begun implicitly (a log cut before a start). */
  private current(name: string): Connection {
    const live = this.live.get(name);
    if (live !== undefined && live.length > 0) return live[0] as Connection;
    const connection = this.connection(name, 0);
    this.live.set(name, [connection]);
    return connection;
  }

  private connection(name: string, line: number): Connection {
    const client = this.options.client ?? 'claude-desktop';
    return new Connection(this.out, { client, server: name, session: `claude-desktop:${name}:${line}` });
  }
}

/** Whether a message opens a block continued on the lines below: a metadata object, or one printed bare. */
function opensBlock(msg: string): boolean {
  const trimmed = msg.trimEnd();
  return trimmed.endsWith('{') || trimmed.endsWith('[') || /\{ metadata: \{$/.test(trimmed);
}

function closesBlock(text: string): boolean {
  const trimmed = text.trimEnd();
  return trimmed === '}' || trimmed === ']' || trimmed.endsWith('} %o');
}

/** The frame of a message: JSON, then JSON with a metadata suffix cut, then 2026's `method="x" id=N` short form. */
function frameOf(text: string): Frame | null {
  const parsed = jsonObject(text) ?? jsonObject(text.slice(0, Math.max(0, text.lastIndexOf(' { metadata:'))));
  if (parsed !== null) return parsed;
  const short = SHORT_FORM.exec(text);
  if (short === null) return null;
  const frame: Frame = { jsonrpc: '2.0', method: short[1] as string };
  if (short[2] !== undefined) frame.id = /^-?\d+$/.test(short[2]) ? Number(short[2]) : short[2];
  return frame;
}

function jsonObject(text: string): Frame | null {
  if (!text.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Frame) : null;
  } catch {
    return null;
  }
}

function cancelledId(frame: Frame): string | number | undefined {
  if (frame.method !== 'notifications/cancelled') return undefined;
  const requestId = (frame.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}
