import { localTime, serverOfFileName, utcTime } from './clock.ts';
import { type Entry, EntryAssembler, eventText } from './entries.ts';
import { RecordWriter } from './records.ts';
import type { HostLogOptions, HostLogReader, HostRead } from './types.ts';

/**
 * Hosts that log a server's lifecycle only, no frames (FORMATS.md): Claude Code (`[DEBUG] MCP server "NAME": msg`
 * with `--debug`, 2025, no time; `TS [LEVEL] MCP server "NAME" msg` in ~/.claude/debug, 2026, UTC) and Cursor
 * (`TS [level] NAME: msg`, local time without a zone). Each line about a server is a server event of that server
 * (its text, level, an exit code or a timeout it names): they are listed with the server and count as no request,
 * since the log shows none; what they show is said, nothing more is claimed.
 */
const CLAUDE_CODE_2025 = /^\[(DEBUG|ERROR|WARN|INFO)\] MCP server "([^"]+)":? (.*)$/s;
const CLAUDE_CODE_2026 =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z) \[(DEBUG|ERROR|WARN|INFO)\] MCP server "([^"]+)":? (.*)$/s;
const CURSOR = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}) \[(info|error|warning)\] ([^:\s[\]]+): (.*)$/s;
const EXIT_CODE = /(?:exit(?:ed)? with code|exit code) (-?\d+)/i;
const TIMEOUT = /timed? ?out/i;

export type LifecycleFormat = 'claude-code' | 'cursor';

export class LifecycleReader implements HostLogReader {
  private readonly entries = new EntryAssembler((text) => this.parse(text) !== null);
  private readonly out: RecordWriter;
  private readonly zone: string;
  private lastAt: number;
  private timed = false;

  constructor(
    private readonly format: LifecycleFormat,
    private readonly options: HostLogOptions,
  ) {
    this.out = new RecordWriter(format, () => this.timed);
    this.zone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    this.lastAt = options.start ?? Date.now();
  }

  push(line: number, text: string): HostRead[] {
    return this.entries.push(line, text).flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
  }

  end(): HostRead[] {
    return this.entries.end().flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
  }

  notes(): string[] {
    const notes = [`${this.format} logs a server's lifecycle only: no request and no outcome is shown`];
    if (this.format === 'cursor') notes.push(`local times read in the zone ${this.zone}`);
    if (!this.timed) notes.push('the log writes no times: records are stamped from the start given, in line order');
    return notes;
  }

  private parse(text: string): { at: number | null; level: string; server: string; msg: string } | null {
    if (this.format === 'cursor') {
      const m = CURSOR.exec(text);
      return m === null
        ? null
        : {
            at: localTime(m[1] as string, this.zone),
            level: m[2] as string,
            server: m[3] as string,
            msg: m[4] as string,
          };
    }
    const now = CLAUDE_CODE_2026.exec(text);
    if (now !== null)
      return {
        at: utcTime(now[1] as string),
        level: now[2] as string,
        server: now[3] as string,
        msg: now[4] as string,
      };
    const old = CLAUDE_CODE_2025.exec(text);
    return old === null ? null : { at: null, level: old[1] as string, server: old[2] as string, msg: old[3] as string };
  }

  private entry(entry: Entry): HostRead[] {
    const first = entry.lines[0] as string;
    const parsed = this.parse(first);
    if (parsed !== null && parsed.at !== null) {
      this.lastAt = parsed.at;
      this.timed = true;
    }
    const at = parsed?.at ?? (this.timed ? this.lastAt : (this.options.start ?? this.lastAt) + entry.line);
    const msg = parsed?.msg ?? first;
    const server = this.options.server ?? parsed?.server ?? serverOfFileName(this.options.fileName) ?? 'unknown';
    const facts: Record<string, unknown> = { text: eventText(msg) };
    if (parsed !== null) facts.level = parsed.level.toLowerCase();
    if (entry.lines.length > 1) facts.lines = entry.lines.length;
    if (entry.cutLines > 0) facts.cutLines = entry.cutLines;
    const exit = EXIT_CODE.exec(msg);
    if (exit !== null) facts.exit = { code: Number(exit[1]), signal: null };
    if (TIMEOUT.test(msg)) facts.timedOut = true;
    const client = this.options.client ?? this.format;
    return [this.out.serverEvent({ client, server }, { line: entry.line, at, text: first }, facts)];
  }
}
