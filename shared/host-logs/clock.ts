/**
 * The times of a log's records. A log with times of its own gives them; a line without one (a stderr line, a
 * continuation) takes the last time read. A log with no times at all (mcp-remote without --debug, supergateway,
 * mcp-proxy) is stamped from `start` plus its line number in milliseconds, so that its order survives; its
 * latencies are not measured then.
 */
export class LogClock {
  private last: number | null = null;

  constructor(private readonly start: number) {}

  /** A time the log wrote. */
  saw(at: number): number {
    this.last = at;
    return at;
  }

  /** The time of a line that writes none. */
  at(line: number): number {
    return this.last ?? this.start + line;
  }

  /** Whether the log wrote any time so far: latencies are measured only then. */
  get timed(): boolean {
    return this.last !== null;
  }
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/** An ISO time in UTC as epoch ms, or null. */
export function utcTime(text: string): number | null {
  if (!ISO_UTC.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : at;
}

/** The name a file gives its host log's server: Claude Desktop's `mcp-server-NAME.log`. */
export function serverOfFileName(fileName: string | undefined): string | undefined {
  const base = fileName?.split(/[\\/]/).pop();
  const match = base === undefined ? null : /^mcp-server-(.+)\.log(?:\.\d+)?$/.exec(base);
  return match?.[1];
}
