import type { Frame } from '../event.ts';
import { LogClock, serverOfFileName, utcTime } from './clock.ts';
import { type Entry, EntryAssembler, eventText } from './entries.ts';
import { CUT, parseJsLiteral } from './js-literal.ts';
import { Connection, type Place, RecordWriter } from './records.ts';
import type { HostLogOptions, HostLogReader, HostRead } from './types.ts';

/**
 * mcp-remote's stderr (with or without `--debug`) and its debug file (FORMATS.md "mcp-remote"):
 * `[PID] [Local→Remote] <method>` and `[PID] [Remote→Local] <id>`, `--debug` adding `[ISO][PID] ...` copies with
 * their times and the messages' objects. What it never shows, said in `notes` and on the records:
 * - outcomes: a result is `result-present` at best (isError invisible), so an answered request is `outcome_unknown`;
 *   only a JSON-RPC error in the debug objects is an outcome;
 * - the ids of requests without `--debug` (but the initialize dump's): the next request takes the last id plus one,
 *   and an answer pairs with the request of its id (`hostlog.idInferred`);
 * - the answers mcp-remote makes up itself (`-32001 fetch failed` while the server is down): such a request has no
 *   answer line and stays `outcome_unknown`;
 * - which request a `notifications/cancelled` names without `--debug`: the latest open one (said in `notes`).
 */
const PLAIN = /^\[(\d+)\] ?(.*)$/;
const STAMPED = /^\[(\d{4}-\d{2}-\d{2}T[\d:.]+Z)\]\[(\d+)\] ?(.*)$/;
const DEBUG_ERROR = /^\[DEBUG LOG ERROR\]/;
const LOCAL_TO_REMOTE = /^\[Local→Remote\] (\S+)/;
const REMOTE_TO_LOCAL = /^\[Remote→Local\] (\S+)/;
const DETAIL = /^(Local → Remote|Remote → Local) message (.*)$/s;
/** Debug chatter around every request: no event of its own. */
const CHATTER = /^(Reading OAuth tokens|Token request stack trace|Token result:)/;

interface Line {
  entry: Entry;
  pid: string;
  at: number | null;
  text: string;
}

interface Pending {
  direction: 'out' | 'in';
  word: string;
  place: Place;
  detail?: Record<string, unknown>;
  dump?: Frame;
}

export class McpRemoteReader implements HostLogReader {
  private readonly entries = new EntryAssembler(
    (text) => PLAIN.test(text) || STAMPED.test(text) || DEBUG_ERROR.test(text),
  );
  private readonly clock: LogClock;
  private readonly out = new RecordWriter('mcp-remote', () => this.clock.timed);
  private readonly connections = new Map<string, Connection>();
  private held: Line | null = null;
  private pending: Pending | null = null;
  private nextId = new Map<string, number>();
  private hidden = 0;
  private inferred = 0;
  private guessedCancels = 0;

  constructor(private readonly options: HostLogOptions) {
    this.clock = new LogClock(options.start ?? Date.now());
  }

  push(line: number, text: string): HostRead[] {
    return this.entries.push(line, text).flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
  }

  end(): HostRead[] {
    const reads = this.entries.end().flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
    reads.push(...this.release(null), ...this.flush());
    for (const connection of this.connections.values()) reads.push(...connection.close(false));
    return reads;
  }

  notes(): string[] {
    const notes: string[] = [];
    if (this.hidden > 0) {
      notes.push(
        `mcp-remote logs no outcome of an answer (not isError, not a result): ${this.hidden} answered request(s) ` +
          'are "outcome unknown", neither success nor failure; its own answers (-32001 "fetch failed") leave no line',
      );
    }
    if (this.inferred > 0) {
      notes.push(`${this.inferred} request id(s) inferred from order: mcp-remote logs ids only with --debug`);
    }
    if (this.guessedCancels > 0) {
      notes.push(
        `${this.guessedCancels} cancel(s) taken to name the latest open request: without --debug no id is shown`,
      );
    }
    if (!this.clock.timed)
      notes.push('the log writes no times: records are stamped from the start given, in line order');
    return notes;
  }

  /** An entry, held one step: a `--debug` copy right after a plain line is that line with its time. */
  private entry(entry: Entry): HostRead[] {
    const first = entry.lines[0] as string;
    const stamped = STAMPED.exec(first);
    const plain = stamped === null ? PLAIN.exec(first) : null;
    const line: Line = stamped
      ? {
          entry,
          pid: stamped[2] as string,
          at: utcTime(stamped[1] as string),
          text: joined(stamped[3] as string, entry),
        }
      : { entry, pid: plain?.[1] ?? '', at: null, text: joined(plain ? (plain[2] as string) : first, entry) };
    const held = this.held;
    if (held !== null && line.at !== null && held.at === null && held.pid === line.pid && held.text === line.text) {
      this.held = null;
      return this.read({ ...held, at: line.at });
    }
    const reads = this.release(line);
    return reads;
  }

  private release(next: Line | null): HostRead[] {
    const held = this.held;
    this.held = next !== null && next.at === null ? next : null;
    const reads = held === null ? [] : this.read(held);
    if (next !== null && next.at !== null) reads.push(...this.read(next));
    return reads;
  }

  private read(line: Line): HostRead[] {
    const at = line.at === null ? this.clock.at(line.entry.line) : this.clock.saw(line.at);
    const place: Place = { line: line.entry.line, at, text: line.entry.lines[0] as string };
    const out = LOCAL_TO_REMOTE.exec(line.text);
    const inbound = REMOTE_TO_LOCAL.exec(line.text);
    if (out !== null || inbound !== null) {
      const reads = this.flush();
      this.pending = { direction: out ? 'out' : 'in', word: (out ?? inbound)?.[1] as string, place };
      return reads;
    }
    const detail = DETAIL.exec(line.text);
    if (detail !== null && this.pending !== null) {
      const object = objectOf(detail[2] as string);
      if (object !== null) this.pending.detail = object;
      return [];
    }
    // The initialize request mcp-remote prints whole, as pretty JSON, under its [Local→Remote] line.
    if (line.text.startsWith('{') && this.pending?.direction === 'out' && this.pending.dump === undefined) {
      const dump = objectOf(line.text);
      if (dump !== null) {
        this.pending.dump = dump;
        return [];
      }
    }
    if (CHATTER.test(line.text) || line.text.trim() === '') return [];
    const facts: Record<string, unknown> = { text: eventText(line.text.split('\n')[0] as string), pid: line.pid };
    if (line.entry.lines.length > 1) facts.lines = line.entry.lines.length;
    if (line.entry.cutLines > 0) facts.cutLines = line.entry.cutLines;
    return [this.out.serverEvent(this.connection(line.pid).parties, place, facts)];
  }

  /** The message of the last direction line, with what its debug object or dump added. */
  private flush(): HostRead[] {
    const pending = this.pending;
    this.pending = null;
    if (pending === null) return [];
    const pid = /^\[(?:[^\]]*\]\[)?(\d+)\]/.exec(pending.place.text)?.[1] ?? '';
    const connection = this.connection(pid);
    return pending.direction === 'out' ? this.sent(connection, pid, pending) : this.answered(connection, pending);
  }

  private sent(connection: Connection, pid: string, pending: Pending): HostRead[] {
    const method = pending.word;
    const detail = pending.detail;
    const frame: Frame = pending.dump ?? { jsonrpc: '2.0', method };
    const params = paramsOf(detail?.params);
    if (pending.dump === undefined && params !== undefined) frame.params = params;
    const declared = pending.dump?.id ?? detail?.id;
    if (method.startsWith('notifications/')) {
      if (method === 'notifications/cancelled' && !isParams(frame.params)) {
        const latest = connection.latestOpen('client');
        if (latest !== undefined) {
          frame.params = { requestId: latest };
          this.guessedCancels++;
        }
      }
      return connection.message('client', frame, pending.place);
    }
    const id = typeof declared === 'number' || typeof declared === 'string' ? declared : this.inferId(pid);
    if (declared === undefined) this.inferred++;
    else if (typeof declared === 'number') this.nextId.set(pid, declared + 1);
    frame.id = id;
    return connection.message('client', frame, pending.place);
  }

  private inferId(pid: string): number {
    const id = this.nextId.get(pid) ?? 0;
    this.nextId.set(pid, id + 1);
    return id;
  }

  private answered(connection: Connection, pending: Pending): HostRead[] {
    const word = pending.word;
    const detail = pending.detail;
    if (!/^\d+$/.test(word) && detail?.id === undefined) {
      // A message of the server's own (a notification, a request whose id only --debug shows).
      const frame: Frame = { jsonrpc: '2.0', method: word };
      if (typeof detail?.id === 'number') frame.id = detail.id;
      return connection.message('server', frame, pending.place);
    }
    const id = typeof detail?.id === 'number' || typeof detail?.id === 'string' ? detail.id : Number(word);
    const error = detail?.error;
    if (typeof error === 'object' && error !== null) {
      return connection.message('server', { jsonrpc: '2.0', id, error }, pending.place);
    }
    this.hidden++;
    return connection.message('server', { jsonrpc: '2.0', id, result: CUT }, pending.place, { hidden: true });
  }

  private connection(pid: string): Connection {
    let connection = this.connections.get(pid);
    if (connection === undefined) {
      const server = this.options.server ?? serverOfFileName(this.options.fileName) ?? 'unknown';
      const client = this.options.client ?? 'mcp-remote';
      connection = new Connection(this.out, { client, server, session: `mcp-remote:${pid}` });
      this.connections.set(pid, connection);
    }
    return connection;
  }
}

function joined(first: string, entry: Entry): string {
  return entry.lines.length === 1 ? first : [first, ...entry.lines.slice(1)].join('\n');
}

/** A debug object: JSON in the debug file, util.inspect on stderr. */
function objectOf(text: string): Record<string, unknown> | null {
  let value: unknown = null;
  try {
    value = JSON.parse(text);
  } catch {
    value = parseJsLiteral(text);
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** mcp-remote writes params as a JSON string, cut at 500 characters: the object when it is whole. */
function paramsOf(params: unknown): unknown {
  if (typeof params !== 'string') return params;
  try {
    return JSON.parse(params);
  } catch {
    return undefined;
  }
}

function isParams(params: unknown): boolean {
  return typeof params === 'object' && params !== null;
}
