import { localTime, serverOfFileName, utcTime } from './clock.ts';
import { LOCAL_TIME_FORMATS } from './detect.ts';
import { type Entry, EntryAssembler, eventText } from './entries.ts';
import { type Place, RecordWriter } from './records.ts';
import type { HostLogOptions, HostLogReader, HostRead } from './types.ts';

/**
 * Hosts that log a server's lifecycle only, no frames (FORMATS.md): Claude Code (`[DEBUG] MCP server "NAME": msg`
 * with `--debug`, 2025, no time; `TS [LEVEL] MCP server "NAME" msg` in ~/.claude/debug, 2026, UTC; in 2025 also a
 * pretty-printed JSON array of `{"debug"|"error": msg, "timestamp", "sessionId", "cwd"}` per server under
 * `mcp-logs-NAME/`, its server from that folder or `--server`), Cursor
 * (`TS [level] NAME: msg`, local time without a zone) and Zed (`Zed.log`: `TS [LEVEL] msg`, 2025, or
 * `TS LEVEL  [module] msg`, later; local time with its offset; the editor's whole log, of which the lines about a
 * context server are read and the others counted, in `notes`).
 *
 * Each line about a server is a server event of that server (its text, level, an exit code or a timeout it names):
 * listed with the server, no request. Where the log shows a connection attempt (Claude Code's "Starting
 * connection", Zed's "starting context server NAME"), the attempt is one counted record (`record: "connection"`,
 * ADR 19) with what the log says became of it: connected, timed out or ended (an exit, a close) before it was, or,
 * when the log shows neither before the next start or its end, an unknown outcome. Nothing more is claimed: no
 * request, no frame, no outcome of any call.
 */
const CLAUDE_CODE_2025 = /^\[(DEBUG|ERROR|WARN|INFO)\] MCP server "([^"]+)":? (.*)$/s;
const CLAUDE_CODE_2026 =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z) \[(DEBUG|ERROR|WARN|INFO)\] MCP server "([^"]+)":? (.*)$/s;
const CURSOR = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}) \[(info|error|warning)\] ([^:\s[\]]+): (.*)$/s;
const ZED_TIME = '(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?[+-]\\d{2}:\\d{2})';
const ZED_2025 = new RegExp(`^${ZED_TIME} \\[([A-Z]+)\\] (.*)$`, 's');
const ZED_LATER = new RegExp(`^${ZED_TIME} ([A-Z]+) +\\[[^\\]]*\\] (.*)$`, 's');
/** Zed's lines about MCP servers ("starting context server NAME", "context server stderr: ..."). */
const ZED_CONTEXT_SERVER = /context server/i;
const ZED_STARTING = /^starting context server (.+)$/i;

/** Claude Code's per-server folder (`mcp-logs-NAME/`) in a file's path. */
const MCP_LOGS = /(?:^|[\\/])mcp-logs-([^\\/]+)[\\/]/;
const EXIT_CODE = /(?:exit(?:ed)? with code|exit code) (-?\d+)/i;
const TIMEOUT = /timed? ?out/i;
/** A connection attempt ended before it connected: the host says it failed or closed, or the process exited. */
const ENDED = /connection (?:failed|closed)|exit(?:ed)? with code|exit code|client closed/i;

export const LIFECYCLE_FORMATS = ['claude-code', 'cursor', 'zed'] as const;
export type LifecycleFormat = (typeof LIFECYCLE_FORMATS)[number];

/** What a line's head says: its time (null: the log writes none), level, the server it names, its message. */
interface Head {
  at: number | null;
  level: string;
  server: string | null;
  msg: string;
}

/** The first line of an element of Claude Code's 2025 JSON array (`  {`): the element is read once it is whole. */
const ELEMENT = 'element';
/** The array's own brackets: no entry. */
const BRACKET = 'bracket';

interface Grammar {
  /**
   * The head of a line of the log; `other` for a line about something else (left out, counted); an array element's
   * first line or a bracket; null: no head.
   */
  head(text: string, zone: string): Head | 'other' | typeof ELEMENT | typeof BRACKET | null;
  /** A host's line that starts a connection attempt to the server it names; null where the log writes none. */
  connecting: RegExp | null;
  /** A host's line that says the attempt connected. */
  connected: RegExp | null;
}

const GRAMMARS: Readonly<Record<LifecycleFormat, Grammar>> = {
  'claude-code': {
    head(text) {
      if (text === '  {') return ELEMENT;
      if (text === '[' || text === ']' || text === '[]') return BRACKET;
      const now = CLAUDE_CODE_2026.exec(text);
      if (now !== null) return head(utcTime(now[1] as string), now[2], now[3], now[4]);
      const old = CLAUDE_CODE_2025.exec(text);
      return old === null ? null : head(null, old[1], old[2], old[3]);
    },
    connecting: /^Starting connection/i,
    connected: /^(?:Successfully connected|Connected)\b/i,
  },
  cursor: {
    head(text, zone) {
      const m = CURSOR.exec(text);
      return m === null ? null : head(localTime(m[1] as string, zone), m[2], m[3], m[4]);
    },
    // Cursor logs what it does with a server and its errors, no start of a connection (FORMATS.md).
    connecting: null,
    connected: null,
  },
  zed: {
    head(text) {
      const m = ZED_2025.exec(text) ?? ZED_LATER.exec(text);
      if (m === null) return null;
      const msg = m[3] as string;
      if (!ZED_CONTEXT_SERVER.test(msg)) return 'other';
      const at = Date.parse(m[1] as string);
      return head(Number.isNaN(at) ? null : at, m[2], ZED_STARTING.exec(msg)?.[1]?.trim() ?? null, msg);
    },
    connecting: ZED_STARTING,
    connected: null,
  },
};

/** An element of Claude Code's 2025 JSON array, whole: `{"debug"|"error": msg, "timestamp", ...}`; null if not one. */
function element(lines: readonly string[]): Head | null {
  let value: unknown;
  try {
    value = JSON.parse(lines.join('\n').replace(/,\s*$/, ''));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { debug, error, timestamp } = value as Record<string, unknown>;
  const msg = typeof error === 'string' ? error : typeof debug === 'string' ? debug : null;
  if (msg === null) return null;
  const at = typeof timestamp === 'string' ? utcTime(timestamp) : null;
  return head(at, typeof error === 'string' ? 'error' : 'debug', null, msg);
}

function head(at: number | null, level: unknown, server: unknown, msg: unknown): Head {
  return { at, level: String(level).toLowerCase(), server: (server as string | null) ?? null, msg: String(msg) };
}

/** A connection attempt waiting for what the log says became of it. */
interface Attempt {
  place: Place;
  client: string;
  server: string;
}

export class LifecycleReader implements HostLogReader {
  private readonly grammar: Grammar;
  private readonly entries: EntryAssembler;
  private readonly out: RecordWriter;
  private readonly zone: string;
  private readonly client: string;
  private lastAt: number;
  private timed = false;
  /** Open connection attempts by server. */
  private readonly attempts = new Map<string, Attempt>();
  /** Servers the log started, in order: a line that names none is theirs when there is one. */
  private readonly started = new Set<string>();
  private otherLines = 0;

  constructor(
    private readonly format: LifecycleFormat,
    private readonly options: HostLogOptions,
  ) {
    this.grammar = GRAMMARS[format];
    this.zone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    this.entries = new EntryAssembler((text) => this.grammar.head(text, this.zone) !== null);
    this.out = new RecordWriter(format, () => this.timed);
    this.lastAt = options.start ?? Date.now();
    this.client = options.client ?? format;
  }

  push(line: number, text: string): HostRead[] {
    return this.entries.push(line, text).flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
  }

  end(): HostRead[] {
    const reads = this.entries.end().flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
    for (const attempt of this.attempts.values()) reads.push(this.settle(attempt, null));
    this.attempts.clear();
    return reads;
  }

  notes(): string[] {
    const notes = [`${this.format} logs a server's lifecycle only: no request and no outcome of a call is shown`];
    if (this.grammar.connecting === null) notes.push('it logs no start of a connection: no connection is counted');
    else notes.push('each connection attempt it shows is counted, with what the log says became of it');
    if (LOCAL_TIME_FORMATS.includes(this.format)) notes.push(`local times read in the zone ${this.zone}`);
    if (!this.timed) notes.push('the log writes no times: records are stamped from the start given, in line order');
    if (this.otherLines > 0) notes.push(`${this.otherLines} lines about other parts of ${this.format} left out`);
    return notes;
  }

  private entry(entry: Entry): HostRead[] {
    const first = entry.lines[0] as string;
    const headed = this.grammar.head(first, this.zone);
    if (headed === BRACKET) return [];
    if (headed === 'other') {
      this.otherLines += entry.lines.length;
      return [];
    }
    // An array element is one record whose lines are its members; one that is not whole stays its lines' event.
    const parsed = headed === ELEMENT ? element(entry.lines) : headed;
    const lines = headed === ELEMENT && parsed !== null ? 1 : entry.lines.length;
    if (parsed !== null && parsed.at !== null) {
      this.lastAt = parsed.at;
      this.timed = true;
    }
    const at = parsed?.at ?? (this.timed ? this.lastAt : (this.options.start ?? this.lastAt) + entry.line);
    const msg = parsed?.msg ?? first;
    const server = this.serverOf(parsed?.server ?? null);
    const place: Place = { line: entry.line, at, text: first };
    const reads: HostRead[] = [];
    const open = this.attempts.get(server);
    if (parsed !== null && this.grammar.connecting?.test(msg) === true) {
      if (parsed.server !== null) this.started.add(parsed.server);
      // A start before the last one's outcome was shown: what became of that one the log does not say.
      if (open !== undefined) reads.push(this.settle(open, null));
      this.attempts.set(server, { place, client: this.client, server });
      return reads;
    }
    const facts: Record<string, unknown> = { text: eventText(msg) };
    if (parsed !== null) facts.level = parsed.level;
    if (lines > 1) facts.lines = lines;
    if (entry.cutLines > 0) facts.cutLines = entry.cutLines;
    const exit = EXIT_CODE.exec(msg);
    if (exit !== null) facts.exit = { code: Number(exit[1]), signal: null };
    const timedOut = TIMEOUT.test(msg);
    if (timedOut) facts.timedOut = true;
    if (open !== undefined && parsed !== null) {
      if (this.grammar.connected?.test(msg) === true) reads.push(this.settle(open, { place, connected: true, facts }));
      else if (timedOut || ENDED.test(msg)) reads.push(this.settle(open, { place, connected: false, facts }));
    }
    reads.push(this.out.serverEvent({ client: this.client, server }, place, facts));
    return reads;
  }

  /** The attempt's record, with the line that said what became of it (null: the log does not say). */
  private settle(
    attempt: Attempt,
    outcome: { place: Place; connected: boolean; facts: Record<string, unknown> } | null,
  ): HostRead {
    if (this.attempts.get(attempt.server) === attempt) this.attempts.delete(attempt.server);
    return this.out.connection({ client: attempt.client, server: attempt.server }, attempt.place, outcome);
  }

  private serverOf(named: string | null): string {
    if (this.options.server !== undefined) return this.options.server;
    if (named !== null) return named;
    const fromFile = serverOfFileName(this.options.fileName) ?? MCP_LOGS.exec(this.options.fileName ?? '')?.[1];
    if (fromFile !== undefined) return fromFile;
    // A line that names no server (Zed's stderr lines) is the one started server's; with several, nobody's.
    return this.started.size === 1 ? (this.started.values().next().value as string) : 'unknown';
  }
}
