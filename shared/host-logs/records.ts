import { hash } from 'node:crypto';
import type { FieldWarning, Frame } from '../event.ts';
import { frameMessage } from '../tap/messages.ts';
import { type Call, Pairing, type Sender, type Sent } from '../tap/pairing.ts';
import { eventText } from './entries.ts';
import type { HostRead } from './types.ts';

/** Who a record is between: the host (client) and the server, in one connection (session) of theirs. */
export interface Parties {
  client: string;
  server: string;
  session?: string;
  /** Facts of the connection every record of it carries (two processes sharing one name). */
  facts?: HostFacts;
}

/** What a host log says of a record beyond the native members: kept under `hostlog`, ignored by other readers. */
export type HostFacts = Record<string, unknown>;

/** How a message's line is placed: the line it starts at, its time, and the text it was read from (for its id). */
export interface Place {
  line: number;
  at: number;
  text: string;
}

/** What the log shows of an answer: the frame, or only that one came (mcp-remote's `[Remote→Local] 7`). */
export interface Answer {
  frame: Frame;
  /** The frame is the log's stand-in, not what was sent: its outcome is not shown. */
  hidden?: boolean;
  /** The frame was rebuilt from the bridge's error line (supergateway's `Request error`). */
  rebuilt?: boolean;
}

interface Origin extends Place {
  hidden: boolean;
  rebuilt: boolean;
}

/**
 * One connection's requests and answers, paired by id with `lens tap`'s pairing (shared/tap/pairing.ts): the two
 * directions have their own id spaces, a cancelled request stays open for a late answer. What a log adds: times may
 * be made up (`timed: false`, no latency then), an answer may hide its outcome, and a request the log ends on has
 * no known outcome (a connection that ended before its answer is a timeout, as for the tap).
 */
export class Connection {
  private readonly pairing = new Pairing(Number.POSITIVE_INFINITY);
  /** Where each frame came from: the pairing keeps the frames themselves, so they are the keys. */
  private readonly origins = new WeakMap<Frame, Origin>();
  /** Answers that named no open request (their request was before the log began, or in another connection). */
  unmatched = 0;
  /** Whether any message was seen: a start line on a connection still silent is a second process, not a restart. */
  seen = false;
  /** The host said the connection ended (its transport closed): what it leaves open is a timeout, not unknown. */
  ended = false;

  constructor(
    private readonly out: RecordWriter,
    readonly parties: Parties,
  ) {}

  /** A message of `sender`; answers the records it completed. */
  message(sender: Sender, frame: Frame, place: Place, answer: Omit<Answer, 'frame'> = {}): HostRead[] {
    this.seen = true;
    this.origins.set(frame, { ...place, hidden: answer.hidden === true, rebuilt: answer.rebuilt === true });
    const before = this.pairing.unmatched;
    const calls = this.pairing.see(sender, frameMessage(frame), place.at);
    if (this.pairing.unmatched > before) {
      this.unmatched++;
      return [this.out.answerAlone(this.parties, frame, place, answer)];
    }
    return calls.map((call) => this.out.call(this.parties, call, this.originsOf(call)));
  }

  /** An answer to the open request `id` of `sender` that the log gives without naming the id in a frame. */
  settle(sender: Sender, id: string | number, answer: Answer, place: Place): HostRead[] {
    this.origins.set(answer.frame, { ...place, hidden: answer.hidden === true, rebuilt: answer.rebuilt === true });
    const call = this.pairing.settle(sender, id, { response: { at: place.at, kept: { frame: answer.frame } } });
    if (call === undefined) return [];
    call.timeout = call.cancelled !== undefined;
    return [this.out.call(this.parties, call, this.originsOf(call))];
  }

  /** The connection ended (`ended`: its host said so; otherwise the log did): what is still open. */
  close(ended: boolean): HostRead[] {
    return this.pairing.drain().map((call) => this.out.call(this.parties, call, this.originsOf(call), !ended));
  }

  get open(): number {
    return this.pairing.size;
  }

  isOpen(sender: Sender, id: string | number): boolean {
    return this.pairing.isOpen(sender, id);
  }

  latestOpen(sender: Sender): string | number | undefined {
    return this.pairing.latestOpen(sender);
  }

  private originsOf(call: Call): { request?: Origin; response?: Origin } {
    return { request: this.originOf(call.request), response: call.response && this.originOf(call.response) };
  }

  private originOf(sent: Sent): Origin | undefined {
    return 'frame' in sent.kept ? this.origins.get(sent.kept.frame) : undefined;
  }
}

/** Builds the native event values of one log: ids, times, the format, and the facts under `hostlog`. */
export class RecordWriter {
  constructor(
    readonly format: string,
    /** Whether the log's times are its own; made-up times give no latency. */
    private readonly timed: () => boolean,
  ) {}

  /** One request and what became of it. `logEnded`: the log ended with it open (its outcome is unknown). */
  call(parties: Parties, call: Call, origins: { request?: Origin; response?: Origin }, logEnded = false): HostRead {
    const request = origins.request;
    const response = origins.response;
    const line = request?.line ?? response?.line ?? 0;
    const facts: HostFacts = { line };
    if (call.sender === 'server') facts.sender = 'server';
    const value = this.head(parties, call.request.at, [request?.text, response?.text, String(line)]);
    if ('frame' in call.request.kept) value.request = call.request.kept.frame;
    if (call.cancelled !== undefined) facts.cancelled = call.cancelled;
    if (call.response !== undefined && response !== undefined) {
      facts.answerLine = response.line;
      if (response.rebuilt) facts.rebuilt = true;
      if (response.hidden) {
        value.record = 'outcome_unknown';
        facts.answered = true;
      } else if ('frame' in call.response.kept) value.response = call.response.kept.frame;
      if (this.timed() && call.latencyMs !== undefined) value.latencyMs = call.latencyMs;
      if (call.cancelled !== undefined) facts.late = true;
    }
    if (call.timeout && call.response === undefined && call.cancelled === undefined) {
      if (logEnded) value.record = 'outcome_unknown';
      else facts.unanswered = 'no answer before its connection ended';
    }
    if (call.timeout && value.record === undefined) value.timeout = true;
    value.hostlog = { ...parties.facts, ...facts };
    return { line, value, warnings: [] };
  }

  /** An answer whose request the log does not show (a bridge that logs one direction only). */
  answerAlone(parties: Parties, frame: Frame, place: Place, answer: Omit<Answer, 'frame'>): HostRead {
    const value = this.head(parties, place.at, [place.text, String(place.line)]);
    const facts: HostFacts = { line: place.line, requestNotLogged: true };
    if (answer.hidden) {
      value.record = 'outcome_unknown';
      facts.answered = true;
    } else value.response = frame;
    value.hostlog = { ...parties.facts, ...facts };
    return { line: place.line, value, warnings: [] };
  }

  /** A request the log shows but whose answer it never could (mcp-remote's own answers, its stripped results). */
  requestAlone(parties: Parties, frame: Frame | undefined, place: Place, facts: HostFacts = {}): HostRead {
    const value = this.head(parties, place.at, [place.text, String(place.line)]);
    if (frame !== undefined) value.request = frame;
    value.record = 'outcome_unknown';
    value.hostlog = { ...parties.facts, line: place.line, ...facts };
    return { line: place.line, value, warnings: [] };
  }

  /**
   * A connection attempt a lifecycle log shows (ADR 19), with the line that says what became of it: connected, or
   * not (timed out, or ended before it connected: `timeout`); null when the log does not say (an unknown outcome).
   */
  connection(
    parties: Parties,
    place: Place,
    outcome: { place: Place; connected: boolean; facts: HostFacts } | null,
  ): HostRead {
    const value = this.head(parties, place.at, [place.text, String(place.line)]);
    const facts: HostFacts = { line: place.line, text: eventText(place.text) };
    if (outcome === null) {
      value.record = 'outcome_unknown';
      facts.connection = 'not shown';
    } else {
      value.record = 'connection';
      facts.answerLine = outcome.place.line;
      facts.connection = outcome.connected ? 'connected' : 'not connected';
      facts.outcome = outcome.facts.text;
      if (outcome.facts.exit !== undefined) facts.exit = outcome.facts.exit;
      if (!outcome.connected) value.timeout = true;
      if (this.timed()) value.latencyMs = Math.max(0, outcome.place.at - place.at);
    }
    value.hostlog = { ...parties.facts, ...facts };
    return { line: place.line, value, warnings: [] };
  }

  /** Something the server or the bridge did outside a request: a stderr line, an exit, a connect. */
  serverEvent(parties: Parties, place: Place, facts: HostFacts, warnings: FieldWarning[] = []): HostRead {
    const value = this.head(parties, place.at, [place.text, String(place.line)]);
    value.record = 'server_event';
    value.hostlog = { ...parties.facts, line: place.line, ...facts };
    return { line: place.line, value, warnings };
  }

  /** The members every record of the log has, for a reader that writes the rest itself (an access log's line). */
  line(parties: Parties, place: Place): Record<string, unknown> {
    return this.head(parties, place.at, [place.text, String(place.line)]);
  }

  private head(parties: Parties, at: number, identity: readonly (string | undefined)[]): Record<string, unknown> {
    const digest = hash(
      'sha256',
      [this.format, parties.server, parties.client, parties.session ?? '', at, ...identity].join('\u0000'),
      'hex',
    ).slice(0, 32);
    const value: Record<string, unknown> = {
      id: `hl:${digest}`,
      ts: new Date(at).toISOString(),
      source: 'client',
      client: parties.client,
      server: parties.server,
    };
    if (parties.session !== undefined) value.session = parties.session;
    value.protocol = 'mcp';
    value.format = this.format;
    return value;
  }
}
