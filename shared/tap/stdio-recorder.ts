import { callEvent, type EventLine, type Observer, serverEvent, type TapFacts } from './events.ts';
import { type Line, LineSplitter } from './lines.ts';
import { clientNameOf, type Message, messagesOf, summarisedMessage } from './messages.ts';
import { type Call, Pairing, type Sender } from './pairing.ts';

/**
 * A frame up to this size is kept whole in its event; a larger one is passed through and recorded as its summary.
 * An event holds two frames and the server's ingest takes 16 MiB a request by default, so 4 MiB keeps every event
 * shippable, and bounds what the recorder holds per open request.
 */
export const MAX_KEPT_FRAME_BYTES = 4 * 1024 * 1024;
/** A stderr line (a stack trace is many lines, each short) is kept up to this; longer ones keep their start. */
export const MAX_STDERR_LINE_BYTES = 16 * 1024;
/** The host's name when its first request does not give one (no `clientInfo`) and `--client` was not given. */
export const UNNAMED_HOST = 'host';
/** Events held while the host has not yet named itself: the server's start-up lines, before `initialize`. */
const MAX_HELD = 1_000;

export interface StdioRecorderOptions {
  server: string;
  /** `--client`; else the host's own name from its first request. */
  client?: string;
  /** One server process, one session. */
  session: string;
  /** How long a request may go unanswered before it is a timeout. */
  boundMs: number;
  /** Prefix of the events' ids, unique to this run; a counter follows it. */
  idPrefix: string;
  emit(event: EventLine): void;
  now?: () => number;
}

/**
 * Turns the bytes a stdio server and its host exchange into native events. Pure: it is handed copies of what the
 * pump already passed on, and hands events to `emit`; it never touches the streams.
 */
export class StdioRecorder {
  private readonly streams: Record<Sender, LineSplitter> = {
    client: new LineSplitter(MAX_KEPT_FRAME_BYTES, 'summary'),
    server: new LineSplitter(MAX_KEPT_FRAME_BYTES, 'summary'),
  };
  private readonly stderrLines = new LineSplitter(MAX_STDERR_LINE_BYTES, 'head');
  private readonly pairing: Pairing;
  private readonly now: () => number;
  private client: string | undefined;
  private held: ((who: Observer) => EventLine)[] = [];
  private seq = 0;

  constructor(private readonly options: StdioRecorderOptions) {
    this.pairing = new Pairing(options.boundMs);
    this.now = options.now ?? Date.now;
    this.client = options.client;
  }

  /** Answers to no open request: late ones (after the bound) and answers to nothing. */
  get unmatched(): number {
    return this.pairing.unmatched;
  }

  bytes(sender: Sender, chunk: Uint8Array): void {
    const at = this.now();
    for (const line of this.streams[sender].push(chunk)) this.line(sender, line, at);
  }

  stderr(chunk: Uint8Array): void {
    const at = this.now();
    for (const line of this.stderrLines.push(chunk)) this.stderrLine(line, at);
  }

  /** Requests unanswered past the bound become timeouts now (called on a timer). */
  tick(): void {
    this.calls(this.pairing.expire(this.now()));
  }

  /** The server's process ended: what it left unanswered, its last stderr line, and the exit itself. */
  exited(exit: NonNullable<TapFacts['exit']>): void {
    const at = this.now();
    const last = this.stderrLines.end();
    if (last !== null) this.stderrLine(last, at);
    this.calls(this.pairing.drain());
    this.record((who) => serverEvent(this.nextId(), who, at, { exit }));
    this.name(UNNAMED_HOST);
  }

  private line(sender: Sender, line: Line, at: number): void {
    let messages: Message[] | null;
    if ('summary' in line) messages = [summarisedMessage(line.summary)];
    else if ('text' in line) messages = messagesOf(line.text);
    else messages = null;
    if (messages === null) {
      // Not JSON-RPC: on the server's stdout it breaks the host's transport, which is worth a record.
      if (sender === 'server' && 'text' in line) {
        const stdout = line.text.slice(0, MAX_STDERR_LINE_BYTES);
        this.record((who) => serverEvent(this.nextId(), who, at, { stdout }));
      }
      return;
    }
    for (const message of messages) {
      if (sender === 'client' && message.kind === 'request' && this.client === undefined) {
        this.name(clientNameOf(message.kept) ?? UNNAMED_HOST);
      }
      this.calls(this.pairing.see(sender, message, at));
    }
  }

  private stderrLine(line: Line, at: number): void {
    const facts: TapFacts =
      'text' in line
        ? { stderr: line.text }
        : 'head' in line
          ? { stderr: line.head, stderrBytes: line.bytes }
          : { stderrBytes: line.bytes };
    this.record((who) => serverEvent(this.nextId(), who, at, facts));
  }

  private calls(calls: Call[]): void {
    for (const call of calls) this.record((who) => callEvent(this.nextId(), who, call));
  }

  /** Emits an event, or holds it until the host has named itself. */
  private record(build: (who: Observer) => EventLine): void {
    if (this.client !== undefined) {
      this.options.emit(build(this.observer(this.client)));
      return;
    }
    this.held.push(build);
    if (this.held.length >= MAX_HELD) this.name(UNNAMED_HOST);
  }

  private name(client: string): void {
    if (this.client !== undefined) return;
    this.client = client;
    const held = this.held;
    this.held = [];
    for (const build of held) this.options.emit(build(this.observer(client)));
  }

  private observer(client: string): Observer {
    const { server, session } = this.options;
    return { source: 'client', client, server, session };
  }

  private nextId(): string {
    return `${this.options.idPrefix}-${++this.seq}`;
  }
}
