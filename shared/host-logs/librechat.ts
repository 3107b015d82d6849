import type { Frame } from '../event.ts';
import { localTime, utcTime } from './clock.ts';
import { type Entry, EntryAssembler, eventText } from './entries.ts';
import { type HostFacts, type Parties, type Place, RecordWriter } from './records.ts';
import type { HostLogOptions, HostLogReader, HostRead } from './types.ts';

/**
 * LibreChat's winston log (FORMATS.md "LibreChat (winston)"): `[NAME  | ]TS level: [MCP][User: ID][SERVER][TOOL] msg`,
 * the prefix docker compose's, the time UTC with `Z` or local without a zone (read in `timeZone`, said in `notes`).
 * Frames are the ones LibreChat sends, `Transport sending: {json}`; no line shows what a server answers. So:
 * - a request is `outcome_unknown` (never a success), unless LibreChat cancelled it: a timeout with its reason;
 * - an answer it sends is to a server's request the log does not show (`hostlog.sender: "server"`);
 * - a frame it cut (`... [truncated]`) is kept with the method and id the cut left readable (`hostlog.truncated`):
 *   the official SDK it uses writes `id` last, so a cut request often has no id; a cut answer hides its outcome;
 * - its lines not about MCP are left out and counted.
 * One connection is one (user, server) pair until LibreChat sends `initialize` on it again (ids start over).
 */
const HEAD = /^(?:\S+\s+\| )?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d{3}Z)?) ([a-z]+): (.*)$/s;
const MCP = /^\[MCP\]((?:\[[^\]]*\])*) (.*)$/s;
const TAG = /\[([^\]]*)\]/g;
const USER = /^User: (.+)$/;
const SENDING = /^Transport sending: (.*)$/s;
const TRUNCATED = '... [truncated]';
/** Requests held for a cancel that may name them: past this, the oldest is given up as of unknown outcome. */
const MAX_OPEN = 10_000;

interface Sent {
  frame: Frame;
  place: Place;
  truncated: boolean;
}

interface Connection {
  parties: Parties;
  open: Map<string, Sent>;
  seen: boolean;
}

export class LibreChatReader implements HostLogReader {
  private readonly entries = new EntryAssembler((text) => HEAD.test(text));
  private readonly out = new RecordWriter('librechat', () => this.timed);
  private readonly zone: string;
  private readonly connections = new Map<string, Connection>();
  private sessions = 0;
  private lastAt: number;
  private timed = false;
  private localTimes = false;
  private requests = 0;
  private cancelled = 0;
  private truncated = 0;
  private otherLines = 0;

  constructor(private readonly options: HostLogOptions) {
    this.zone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    this.lastAt = options.start ?? Date.now();
  }

  push(line: number, text: string): HostRead[] {
    return this.entries.push(line, text).flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
  }

  end(): HostRead[] {
    const reads = this.entries.end().flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
    for (const connection of this.connections.values()) reads.push(...this.release(connection));
    return reads;
  }

  notes(): string[] {
    const unknown = this.requests - this.cancelled;
    const notes = [
      `LibreChat logs only the frames it sends, no answer: ${unknown} request(s) are "outcome unknown", neither ` +
        `success nor failure${this.cancelled > 0 ? `; ${this.cancelled} it cancelled are timeouts` : ''}`,
    ];
    if (this.truncated > 0) {
      notes.push(
        `${this.truncated} frame(s) cut by LibreChat ("... [truncated]"): kept with their readable method and id`,
      );
    }
    if (this.localTimes) {
      notes.push(
        `local times read in the zone ${this.zone}${this.options.timeZone === undefined ? ' (this server’s own)' : ''}`,
      );
    }
    if (this.otherLines > 0) notes.push(`${this.otherLines} lines of LibreChat not about MCP left out`);
    return notes;
  }

  private entry(entry: Entry): HostRead[] {
    const first = entry.lines[0] as string;
    const head = HEAD.exec(first);
    const mcp = head === null ? null : MCP.exec(head[3] as string);
    if (head === null || mcp === null) {
      this.otherLines += entry.lines.length + entry.cutLines;
      return [];
    }
    const place: Place = { line: entry.line, at: this.timeOf(head[1] as string), text: first };
    const tags = [...(mcp[1] as string).matchAll(TAG)].map((tag) => tag[1] as string);
    const user = tags.map((tag) => USER.exec(tag)?.[1]).find((id) => id !== undefined);
    const [server, tool] = tags.filter((tag) => !USER.test(tag));
    const connection = this.connection(user, server);
    const msg = [mcp[2] as string, ...entry.lines.slice(1)].join('\n');
    const sending = SENDING.exec(msg);
    const frame = sending === null ? null : frameOf(sending[1] as string);
    if (frame !== null) return this.sent(connection, frame, place);
    const facts: HostFacts = { text: eventText(mcp[2] as string), level: head[2] };
    if (tool !== undefined) facts.tool = tool;
    if (entry.lines.length > 1) facts.lines = entry.lines.length;
    if (entry.cutLines > 0) facts.cutLines = entry.cutLines;
    return [this.out.serverEvent(connection.parties, place, facts)];
  }

  private sent(connection: Connection, { frame, truncated }: Read, place: Place): HostRead[] {
    if (truncated) this.truncated++;
    const { id, method } = frame;
    const hasId = typeof id === 'string' || typeof id === 'number';
    if (typeof method === 'string' && hasId) return this.request(connection, { frame, place, truncated }, id);
    if (typeof method === 'string' && (!truncated || method.startsWith('notifications/'))) {
      return this.notification(connection, frame);
    }
    if (typeof method === 'string') {
      // A request whose id the cut took: no cancel can name it.
      this.requests++;
      return [this.out.requestAlone(connection.parties, frame, place, { truncated: true, idCut: true })];
    }
    if (hasId) {
      // LibreChat's answer to a server's own request (sampling, roots, ping), which the log does not show.
      const read = this.out.answerAlone(connection.parties, frame, place, { hidden: truncated });
      return [facts(read, truncated ? { sender: 'server', truncated: true } : { sender: 'server' })];
    }
    const seen: HostFacts = { text: eventText(place.text), truncated };
    return [this.out.serverEvent(connection.parties, place, seen)];
  }

  private request(current: Connection, sent: Sent, id: string | number): HostRead[] {
    const reads: HostRead[] = [];
    let connection = current;
    if (sent.frame.method === 'initialize' && connection.seen) {
      // LibreChat connects again: what the last connection left open, the log never says became of.
      reads.push(...this.release(connection));
      connection = this.renew(connection);
    }
    connection.seen = true;
    this.requests++;
    const key = keyOf(id);
    const reused = connection.open.get(key);
    if (reused !== undefined) reads.push(this.unknown(connection, reused));
    connection.open.delete(key);
    connection.open.set(key, sent);
    if (connection.open.size > MAX_OPEN) {
      const [oldest, first] = connection.open.entries().next().value as [string, Sent];
      connection.open.delete(oldest);
      reads.push(this.unknown(connection, first));
    }
    return reads;
  }

  private notification(connection: Connection, frame: Frame): HostRead[] {
    connection.seen = true;
    if (frame.method !== 'notifications/cancelled') return [];
    const { requestId, reason } = (frame.params ?? {}) as { requestId?: unknown; reason?: unknown };
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return [];
    const sent = connection.open.get(keyOf(requestId));
    if (sent === undefined) return [];
    connection.open.delete(keyOf(requestId));
    this.cancelled++;
    const read = this.out.call(
      connection.parties,
      {
        sender: 'client',
        method: String(sent.frame.method),
        request: { at: sent.place.at, kept: { frame: sent.frame } },
        timeout: true,
        cancelled: typeof reason === 'string' ? reason : '',
      },
      { request: { ...sent.place, hidden: false, rebuilt: false } },
    );
    return [sent.truncated ? facts(read, { truncated: true }) : read];
  }

  private unknown(connection: Connection, sent: Sent): HostRead {
    return this.out.requestAlone(connection.parties, sent.frame, sent.place, sent.truncated ? { truncated: true } : {});
  }

  /** Every request of the connection still held: the log shows no more of them. */
  private release(connection: Connection): HostRead[] {
    const reads = [...connection.open.values()].map((sent) => this.unknown(connection, sent));
    connection.open.clear();
    return reads;
  }

  private connection(user: string | undefined, named: string | undefined): Connection {
    const server = this.options.server ?? named ?? 'unknown';
    const key = `${user ?? ''}\u0000${server}`;
    let connection = this.connections.get(key);
    if (connection === undefined) {
      connection = this.opened(user, server);
      this.connections.set(key, connection);
    }
    return connection;
  }

  private renew(old: Connection): Connection {
    const user = old.parties.facts?.user as string | undefined;
    const connection = this.opened(user, old.parties.server);
    this.connections.set(`${user ?? ''}\u0000${old.parties.server}`, connection);
    return connection;
  }

  private opened(user: string | undefined, server: string): Connection {
    this.sessions++;
    const parties: Parties = {
      client: this.options.client ?? 'librechat',
      server,
      session: `librechat:${server}:${this.sessions}`,
    };
    if (user !== undefined) parties.facts = { user };
    return { parties, open: new Map(), seen: false };
  }

  private timeOf(text: string): number {
    const zoned = text.endsWith('Z');
    if (!zoned) this.localTimes = true;
    const at = zoned ? utcTime(text.replace(' ', 'T')) : localTime(text, this.zone);
    if (at === null) return this.lastAt;
    this.timed = true;
    this.lastAt = at;
    return at;
  }
}

interface Read {
  frame: Frame;
  truncated: boolean;
}

/** The frame of a `Transport sending:` line: whole, or what the cut left readable; null when it is neither. */
function frameOf(text: string): Read | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { frame: value as Frame, truncated: false };
    }
    return null;
  } catch {
    if (!text.endsWith(TRUNCATED)) return null;
    return { frame: { jsonrpc: '2.0', ...readableMembers(text.slice(0, -TRUNCATED.length)) }, truncated: true };
  }
}

/** A whole `"method"` or `"id"` member at the object's first level, its value followed by `,` or `}`. */
const MEMBER = /"(method|id)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)(?=\s*[,}])/y;

/** The method and id a cut frame still shows at its first level (a nested `"id"` is the params', not the frame's). */
export function readableMembers(text: string): { method?: string; id?: string | number } {
  const found: { method?: string; id?: string | number } = {};
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      if (depth === 1) {
        MEMBER.lastIndex = i;
        const member = MEMBER.exec(text);
        if (member !== null) {
          const value: unknown = JSON.parse(member[2] as string);
          if (member[1] === 'method' && typeof value === 'string') found.method = value;
          if (member[1] === 'id' && (typeof value === 'string' || typeof value === 'number')) found.id = value;
        }
      }
      // Past the string, escapes included.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
  }
  return found;
}

function facts(read: HostRead, more: HostFacts): HostRead {
  if ('value' in read) read.value.hostlog = { ...(read.value.hostlog as HostFacts), ...more };
  return read;
}

/** `1` and `"1"` are different ids. */
function keyOf(id: string | number): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}
