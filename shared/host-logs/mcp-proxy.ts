import type { Frame } from '../event.ts';
import { LogClock, serverOfFileName } from './clock.ts';
import { type Entry, EntryAssembler, eventText, MAX_LINE_CHARS } from './entries.ts';
import { parseJsLiteral } from './js-literal.ts';
import { Connection, type Place, RecordWriter } from './records.ts';
import type { HostLogOptions, HostLogReader, HostRead } from './types.ts';

/**
 * mcp-proxy's `--debug` stdout (punkpeye's, npm; FORMATS.md "mcp-proxy"): `transport event { ... }` blocks for what
 * the wrapped stdio server wrote, a `data` chunk as written and the `message` parsed from it. The chunks are read
 * (JSON, exact; a chunk may hold several frames or part of one), the parsed copies skipped. Requests are not logged,
 * so each answer is a record of its own, its id mcp-proxy's upstream id (not the host's); an upstream id missing
 * between two answered ones is a request that got no answer in the log (`outcome_unknown`, `hostlog.upstreamId`).
 * Requests mcp-proxy answers itself (`ping`, a method the server lacks) leave no line at all: said in `notes`.
 */
const BLOCK_START = /^transport event \{/;

export class McpProxyReader implements HostLogReader {
  private readonly entries = new EntryAssembler((text) => !/^\s/.test(text) && text !== '}');
  private readonly clock: LogClock;
  private readonly out = new RecordWriter('mcp-proxy', () => this.clock.timed);
  private connection: Connection | null = null;
  private buffer = '';
  private readonly answered = new Map<number, Place>();
  private answers = 0;

  constructor(private readonly options: HostLogOptions) {
    this.clock = new LogClock(options.start ?? Date.now());
  }

  push(line: number, text: string): HostRead[] {
    return this.entries.push(line, text).flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
  }

  end(): HostRead[] {
    const reads = this.entries.end().flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
    reads.push(...this.gaps(), ...this.parties().close(false));
    return reads;
  }

  notes(): string[] {
    return [
      'mcp-proxy logs what the server wrote only: requests are not logged, ids are its own upstream ids, and ' +
        `requests it answers itself (ping, a method the server lacks) leave no line; ${this.answers} answer(s) read`,
      'mcp-proxy writes no times: records are stamped from the start given, in line order',
    ];
  }

  private entry(entry: Entry): HostRead[] {
    const first = entry.lines[0] as string;
    const place: Place = { line: entry.line, at: this.clock.at(entry.line), text: first };
    if (BLOCK_START.test(first)) {
      const block = parseJsLiteral(entry.lines.join('\n').replace(/^transport event /, ''));
      if (typeof block === 'object' && block !== null) {
        const { type, chunk } = block as { type?: unknown; chunk?: unknown };
        if (type === 'message') return [];
        if (type === 'data' && typeof chunk === 'string') return this.chunk(chunk, place);
      }
    }
    if (first.trim() === '') return [];
    const facts: Record<string, unknown> = { text: eventText(first) };
    if (entry.cutLines > 0) facts.cutLines = entry.cutLines;
    return [this.out.serverEvent(this.parties().parties, place, facts)];
  }

  /** What the server wrote: complete lines are frames, a partial one waits for the next chunk. */
  private chunk(chunk: string, place: Place): HostRead[] {
    this.buffer += chunk;
    if (this.buffer.length > MAX_LINE_CHARS) this.buffer = '';
    const lines = this.buffer.split('\n');
    this.buffer = lines.pop() ?? '';
    const reads: HostRead[] = [];
    for (const text of lines) {
      if (text.trim() === '') continue;
      let frame: unknown;
      try {
        frame = JSON.parse(text);
      } catch {
        reads.push(this.out.serverEvent(this.parties().parties, place, { stdout: eventText(text) }));
        continue;
      }
      if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) continue;
      const id = (frame as Frame).id;
      if (typeof id === 'number' && ('result' in frame || 'error' in frame)) {
        this.answered.set(id, place);
        this.answers++;
      }
      reads.push(...this.parties().message('server', frame as Frame, place));
    }
    return reads;
  }

  /** Upstream ids skipped between answered ones: requests sent upstream that the log shows no answer to. */
  private gaps(): HostRead[] {
    const ids = [...this.answered.keys()].sort((a, b) => a - b);
    const reads: HostRead[] = [];
    for (let i = 1; i < ids.length; i++) {
      for (let missing = (ids[i - 1] as number) + 1; missing < (ids[i] as number); missing++) {
        // Placed after the answer before the gap: the request was sent some time after it.
        const before = this.answered.get(ids[i - 1] as number) as Place;
        const place = { ...before, text: `${before.text}\u0000gap ${missing}` };
        reads.push(this.out.requestAlone(this.parties().parties, undefined, place, { upstreamId: missing }));
      }
    }
    return reads;
  }

  private parties(): Connection {
    if (this.connection === null) {
      const server = this.options.server ?? serverOfFileName(this.options.fileName) ?? 'unknown';
      this.connection = new Connection(this.out, { client: this.options.client ?? 'mcp-proxy', server });
    }
    return this.connection;
  }
}
