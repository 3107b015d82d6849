import type { HttpFacts } from '../event.ts';
import { callEvent, type EventLine, type Observer, serverEvent, type TapFacts } from './events.ts';
import { Collector, type Line } from './lines.ts';
import { clientNameOf, type Message, messagesOf, summarisedMessage } from './messages.ts';
import { type Call, Pairing, type Sent } from './pairing.ts';
import { SseReader } from './sse.ts';
import { MAX_KEPT_FRAME_BYTES } from './stdio-recorder.ts';

/** The request as the proxy received it: what the event's `http` facts and the pairing need. */
export interface HttpRequestHead {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface HttpRecorderOptions {
  server: string;
  /** `--client`; else the host's name from `initialize` (per session) or `_meta`, else its user agent. */
  client?: string;
  boundMs: number;
  idPrefix: string;
  emit(event: EventLine): void;
  now?: () => number;
}

/**
 * Records what passes through the Streamable HTTP proxy as native proxy records (DOMAIN.md section 2): one event per
 * JSON-RPC request with both frames and the exchange's HTTP facts (MCP's `Mcp-Session-Id`, `Mcp-Method`, `Mcp-Name`,
 * `MCP-Protocol-Version` headers among them), one per notification or client answer with its status, and one per
 * exchange that carries no request (a GET that opens a stream, a DELETE). A request is answered on its own POST's
 * stream (JSON or SSE); the server's own requests arrive on any stream of the session and are answered by a later
 * POST, so they pair per session.
 */
export class HttpRecorder {
  private readonly sessions = new Map<string, { pairing: Pairing; client?: string }>();
  private seq = 0;
  readonly now: () => number;

  constructor(readonly options: HttpRecorderOptions) {
    this.now = options.now ?? Date.now;
  }

  begin(head: HttpRequestHead): Exchange {
    return new Exchange(this, head, this.now());
  }

  session(id: string): { pairing: Pairing; client?: string } {
    let session = this.sessions.get(id);
    if (session === undefined) {
      session = { pairing: new Pairing(this.options.boundMs) };
      this.sessions.set(id, session);
    }
    return session;
  }

  /** A session the client ended (DELETE) or the server forgot: its server requests will not be answered now. */
  forget(id: string): Call[] {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    return session?.pairing.drain() ?? [];
  }

  /** The end of the recording: the server requests no client answered, as timeouts. */
  close(): void {
    for (const [id, session] of this.sessions) {
      const who: Observer = {
        source: 'proxy',
        client: this.options.client ?? session.client,
        server: this.options.server,
      };
      if (id !== '') who.session = id;
      for (const call of session.pairing.drain()) this.options.emit(callEvent(this.nextId(), who, call));
    }
    this.sessions.clear();
  }

  nextId(): string {
    return `${this.options.idPrefix}-${++this.seq}`;
  }
}

/** One HTTP request through the proxy and its answer, read as they stream. */
export class Exchange {
  private readonly body = new Collector(MAX_KEPT_FRAME_BYTES, 'summary');
  /** This POST's own requests: their answers come on its own stream. */
  private readonly own: Pairing;
  private ownIds: (string | number)[] = [];
  /** What waits for the status: the request's notifications and client answers, or the exchange itself. */
  private pending: ((http: HttpFacts) => void)[] = [];
  private requestDone = false;
  private status: number | undefined;
  private answeredAt: number | undefined;
  private retryAfter: string | undefined;
  private responseSession: string | undefined;
  private reader: SseReader | Collector | null = null;
  private idless: Sent | undefined;
  private client: string | undefined;
  private tap: TapFacts = {};
  private over = false;

  constructor(
    private readonly recorder: HttpRecorder,
    private readonly head: HttpRequestHead,
    private readonly at: number,
  ) {
    this.own = new Pairing(recorder.options.boundMs);
  }

  requestBytes(chunk: Uint8Array): void {
    this.body.push(chunk);
  }

  /** The whole request body is in: its messages are read, and what needs the status waits for it. */
  requestEnded(): void {
    this.requestDone = true;
    const line = this.body.finish();
    const messages = line === null ? [] : (messagesOfLine(line) ?? []);
    for (const message of messages) this.fromClient(message);
    if (messages.length === 0) this.pending.push((http) => this.emitFrameless(http));
    this.release();
  }

  /** The answer's status and headers. */
  answered(status: number, headers: Record<string, string | string[] | undefined>): void {
    this.status = status;
    this.answeredAt = this.recorder.now();
    this.retryAfter = header(headers, 'retry-after');
    this.responseSession = header(headers, 'mcp-session-id');
    const type = header(headers, 'content-type') ?? '';
    if (/^text\/event-stream/i.test(type)) this.reader = new SseReader(MAX_KEPT_FRAME_BYTES);
    else if (/json/i.test(type)) this.reader = new Collector(MAX_KEPT_FRAME_BYTES, 'summary');
    if (this.head.method === 'DELETE' && status < 400) {
      const session = header(this.head.headers, 'mcp-session-id');
      if (session !== undefined) this.calls(this.recorder.forget(session), this.facts());
    }
    this.release();
  }

  /** Decoded bytes of the answer's body. */
  responseBytes(chunk: Uint8Array): void {
    if (this.reader instanceof SseReader) for (const line of this.reader.push(chunk)) this.fromServer(line);
    else this.reader?.push(chunk);
  }

  /** The answer is complete: a JSON body is read, and this POST's requests that got no answer on it are settled. */
  ended(): void {
    if (this.reader instanceof Collector) {
      const line = this.reader.finish();
      if (line !== null) this.fromServer(line);
    }
    this.finish(false);
  }

  /** The proxy answered itself (502: the upstream did not answer). */
  failed(status: number, why: string): void {
    this.tap.proxyError = why;
    this.answered(status, {});
    this.finish(false);
  }

  /** The connection broke before the answer was complete (the client gave up, or the upstream went away). */
  broken(): void {
    this.finish(true);
  }

  /** The bound passed: what is still unanswered is a timeout, and an answer after it will not be paired. */
  expire(): void {
    this.finish(true);
  }

  private finish(cut: boolean): void {
    if (this.over) return;
    this.over = true;
    const http = this.facts();
    const single = this.ownIds.length === 1;
    for (const id of this.ownIds) {
      const byStatus = !cut && (this.status ?? 0) >= 400;
      const call = this.own.settle('client', id, { response: single ? this.idless : undefined, byStatus });
      if (call !== undefined) this.calls([call], http);
    }
    if (!this.requestDone || this.status === undefined) this.release(true);
  }

  private fromClient(message: Message): void {
    const sessionId = header(this.head.headers, 'mcp-session-id');
    if (message.kind === 'request') {
      const name = clientNameOf(message.kept);
      if (name !== null) this.client = name;
      this.own.see('client', message, this.at);
      this.ownIds.push(message.id);
      return;
    }
    const sent = { at: this.at, kept: message.kept };
    if (message.kind === 'response') {
      // The client's answer to a server's request: that call is done, recorded with this POST's facts.
      const session = this.recorder.session(sessionId ?? '');
      const calls = session.pairing.see('client', message, this.at);
      this.pending.push((http) => this.calls(calls, http));
      return;
    }
    this.pending.push((http) =>
      this.recorder.options.emit(
        callEvent(
          this.recorder.nextId(),
          this.observer(),
          { sender: 'client', method: '', request: sent, timeout: false },
          http,
        ),
      ),
    );
  }

  private fromServer(line: Line): void {
    const messages = messagesOfLine(line);
    if (messages === null) return;
    const at = this.recorder.now();
    for (const message of messages) {
      if (message.kind === 'response') {
        this.calls(this.own.see('server', message, at), this.facts());
      } else if (message.kind === 'request') {
        this.recorder.session(this.sessionId() ?? '').pairing.see('server', message, at);
      } else if (message.kind === 'other' && 'frame' in message.kept && 'error' in message.kept.frame) {
        this.idless = { at, kept: message.kept };
      }
    }
  }

  /** Runs what waited for the status once both the body and the status are in (or the exchange is over). */
  private release(force = false): void {
    if (!force && (!this.requestDone || this.status === undefined)) return;
    const pending = this.pending;
    this.pending = [];
    const http = this.facts();
    for (const run of pending) run(http);
  }

  private emitFrameless(http: HttpFacts): void {
    const event = serverEvent(this.recorder.nextId(), this.observer(), this.at, this.tap, http);
    if (Object.keys(this.tap).length === 0) delete event.tap;
    if (this.answeredAt !== undefined) event.latencyMs = this.answeredAt - this.at;
    else event.timeout = true;
    this.recorder.options.emit(event);
  }

  private calls(calls: Call[], http: HttpFacts): void {
    for (const call of calls) {
      const event = callEvent(this.recorder.nextId(), this.observer(), call, http);
      if (this.tap.proxyError !== undefined) event.tap = { ...(event.tap as object), proxyError: this.tap.proxyError };
      this.recorder.options.emit(event);
    }
  }

  private sessionId(): string | undefined {
    return header(this.head.headers, 'mcp-session-id') ?? this.responseSession;
  }

  private observer(): Observer {
    const sessionId = this.sessionId();
    const { server, client } = this.recorder.options;
    const session = sessionId === undefined ? undefined : this.recorder.session(sessionId);
    if (session !== undefined && this.client !== undefined) session.client ??= this.client;
    const name = client ?? session?.client ?? this.client ?? header(this.head.headers, 'user-agent');
    return { source: 'proxy', client: name, server, session: sessionId };
  }

  private facts(): HttpFacts {
    const { method, path, headers } = this.head;
    const facts: HttpFacts = { method, path };
    if (this.status !== undefined) facts.status = this.status;
    if (this.retryAfter !== undefined) (facts as Record<string, unknown>).retryAfter = this.retryAfter;
    const named: [keyof HttpFacts, string][] = [
      ['requestId', 'x-request-id'],
      ['traceparent', 'traceparent'],
      ['mcpMethod', 'mcp-method'],
      ['mcpName', 'mcp-name'],
      ['protocolVersion', 'mcp-protocol-version'],
    ];
    for (const [field, name] of named) {
      const value = header(headers, name);
      if (value !== undefined) (facts as Record<string, unknown>)[field] = value;
    }
    return facts;
  }
}

function messagesOfLine(line: Line): Message[] | null {
  if ('summary' in line) return [summarisedMessage(line.summary)];
  return 'text' in line ? messagesOf(line.text) : null;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
