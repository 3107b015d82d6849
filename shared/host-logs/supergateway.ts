import type { Frame } from '../event.ts';
import { LogClock, serverOfFileName } from './clock.ts';
import { type Entry, EntryAssembler, eventText } from './entries.ts';
import { parseJsLiteral } from './js-literal.ts';
import { Connection, type Place, RecordWriter } from './records.ts';
import type { HostLogOptions, HostLogReader, HostRead } from './types.ts';

/**
 * supergateway's log, both sides (FORMATS.md "supergateway"); no times anywhere.
 * - Server side (`--stdio CMD --outputTransport sse|streamableHttp`): whole JSON frames, `StreamableHttp → Child` /
 *   `SSE → Child (session ID)` from the client, `Child → ...` from the server, paired per session (the session
 *   bookkeeping lines name it); `Child stderr:` and `Child exited:` are server events, and an exit ends what was open.
 * - Client side (`--sse URL` / `--streamableHttp URL`, stdio to the host): frames in util.inspect syntax, nested
 *   values cut to `[Object]` (an `isError: true` survives, the text does not); a JSON-RPC error shows only as
 *   `Request error: ...` with no id: it answers the latest open request, rebuilt as supergateway answers the host
 *   (`hostlog.rebuilt`): an McpError's code and message, else -32000 with the error's message.
 */
const PREFIX = '[supergateway] ';
const FROM_CLIENT =
  /^(?:Stdio → (?:Streamable HTTP|SSE)|StreamableHttp → Child|SSE → Child(?: \(session ([^)]+)\))?): (.*)$/s;
const FROM_SERVER = /^(?:Response|Child → (?:StreamableHttp|SSE)(?: \(session ([^)]+)\))?): (.*)$/s;
const REQUEST_ERROR = /^Request error: (.*)$/s;
const SESSION =
  /(?:SessionAccessCounter\.(?:inc|dec)\(\) |Session access count .* for |Response (?:finished|closed) )([0-9a-f-]{36})/;
const CHATTER = /^(?:SessionAccessCounter|Session access count|Response finished|Response closed| {2}- )/;
const CHILD_STDERR = /^Child stderr: ?(.*)$/s;
const CHILD_EXIT = /^Child exited: code=(\S+), signal=(\S+)/;

export class SupergatewayReader implements HostLogReader {
  private readonly entries = new EntryAssembler((text) => text.startsWith(PREFIX));
  private readonly clock: LogClock;
  private readonly out = new RecordWriter('supergateway', () => this.clock.timed);
  private readonly connections = new Map<string, Connection>();
  private session = '';
  private cut = 0;
  private rebuilt = 0;

  constructor(private readonly options: HostLogOptions) {
    this.clock = new LogClock(options.start ?? Date.now());
  }

  push(line: number, text: string): HostRead[] {
    return this.entries.push(line, text).flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
  }

  end(): HostRead[] {
    const reads = this.entries.end().flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
    for (const connection of this.connections.values()) reads.push(...connection.close(false));
    return reads;
  }

  notes(): string[] {
    const notes = ['supergateway writes no times: records are stamped from the start given, in line order'];
    if (this.cut > 0) {
      notes.push(
        `${this.cut} frame(s) printed cut to [Object] (supergateway's client side): a tool error's text is not ` +
          'shown, so its kind cannot be read from it',
      );
    }
    if (this.rebuilt > 0) {
      notes.push(
        `${this.rebuilt} error answer(s) rebuilt from "Request error" lines, which name no id: paired by order`,
      );
    }
    return notes;
  }

  private entry(entry: Entry): HostRead[] {
    const first = entry.lines[0] as string;
    const text = [first.startsWith(PREFIX) ? first.slice(PREFIX.length) : first, ...entry.lines.slice(1)].join('\n');
    const place: Place = { line: entry.line, at: this.clock.at(entry.line), text: first };
    const session = SESSION.exec(text);
    if (session !== null) this.session = session[1] as string;
    const fromClient = FROM_CLIENT.exec(text);
    if (fromClient !== null) return this.frame('client', fromClient[1], fromClient[2] as string, place, entry);
    const fromServer = FROM_SERVER.exec(text);
    if (fromServer !== null) return this.frame('server', fromServer[1], fromServer[2] as string, place, entry);
    const error = REQUEST_ERROR.exec(text);
    if (error !== null) {
      const reads = this.requestError(error[1] as string, place);
      if (reads !== null) return reads;
    }
    if (CHATTER.test(text) || text.trim() === '') return [];
    return this.serverEvent(text, place, entry);
  }

  private frame(sender: 'client' | 'server', session: string | undefined, body: string, place: Place, entry: Entry) {
    if (session !== undefined) this.session = session;
    const frame = frameOf(body);
    if (frame === null) return this.serverEvent(body, place, entry);
    if (body.includes('[Object]') || body.includes('[Array]')) this.cut++;
    return this.connection().message(sender, frame, place);
  }

  /** `Request error: McpError: MCP error -32601: Method not found` and its stack: the latest open request's answer. */
  private requestError(text: string, place: Place): HostRead[] | null {
    const connection = this.connection();
    const id = connection.latestOpen('client');
    if (id === undefined) return null;
    this.rebuilt++;
    const error = errorOf(text);
    return connection.settle('client', id, { frame: { jsonrpc: '2.0', id, error }, rebuilt: true }, place);
  }

  private serverEvent(text: string, place: Place, entry: Entry): HostRead[] {
    const facts: Record<string, unknown> = {};
    const stderr = CHILD_STDERR.exec(text);
    const exit = CHILD_EXIT.exec(text);
    if (stderr !== null) facts.stderr = eventText(stderr[1] as string);
    else if (exit !== null) facts.exit = { code: numberOrNull(exit[1]), signal: exit[2] === 'null' ? null : exit[2] };
    else facts.text = eventText(text.split('\n')[0] as string);
    if (entry.lines.length > 1) facts.lines = entry.lines.length;
    if (entry.cutLines > 0) facts.cutLines = entry.cutLines;
    const reads = [this.out.serverEvent(this.connection().parties, place, facts)];
    // The child is gone: what it had not answered never will be.
    if (exit !== null) for (const connection of this.connections.values()) reads.push(...connection.close(true));
    return reads;
  }

  private connection(): Connection {
    let connection = this.connections.get(this.session);
    if (connection === undefined) {
      const server = this.options.server ?? serverOfFileName(this.options.fileName) ?? 'unknown';
      const client = this.options.client ?? 'supergateway';
      const session = this.session === '' ? undefined : this.session;
      connection = new Connection(this.out, { client, server, ...(session !== undefined && { session }) });
      this.connections.set(this.session, connection);
    }
    return connection;
  }
}

/** A frame: JSON on the server side, util.inspect on the client side. */
function frameOf(text: string): Frame | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = parseJsLiteral(text);
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Frame) : null;
}

const MCP_ERROR = /^McpError: MCP error (-?\d+): (.*)$/;
const HTTP_CODE = /^\s*code: (\d{3}),?$/m;

/** The error supergateway answers the host with, from its `Request error` line and block. */
function errorOf(text: string): { code: number; message: string } {
  const first = text.split('\n')[0] as string;
  const mcp = MCP_ERROR.exec(first);
  if (mcp !== null) return { code: Number(mcp[1]), message: mcp[2] as string };
  const message = first.replace(/^[A-Za-z]*Error: /, '');
  const status = HTTP_CODE.exec(text);
  return { code: -32000, message: status === null ? message : `HTTP ${status[1]}: ${message}` };
}

function numberOrNull(text: string | undefined): number | null {
  const value = Number(text);
  return text === undefined || text === 'null' || Number.isNaN(value) ? null : value;
}
