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

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** How far `zone`'s wall clock is ahead of UTC at the instant `at` (ms). */
function zoneOffset(at: number, zone: string): number {
  let format = zoneFormats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    zoneFormats.set(zone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(at)) parts[part.type] = Number(part.value);
  const wall = Date.UTC(
    parts.year as number,
    (parts.month as number) - 1,
    parts.day as number,
    parts.hour as number,
    parts.minute as number,
    parts.second as number,
  );
  return wall - (at - (at % 1000));
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,3}))?$/;

/**
 * A local time without a zone (`2026-12-06 02:30:57.120`) as epoch ms, read in the IANA `zone`. A wall time a
 * clock change skipped or repeated takes the offset before the change.
 */
export function localTime(text: string, zone: string): number | null {
  const match = LOCAL.exec(text);
  if (match === null) return null;
  const [, y, mo, d, h, mi, s, ms = '0'] = match;
  const wall = Date.UTC(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h),
    Number(mi),
    Number(s),
    Number(ms.padEnd(3, '0')),
  );
  if (Number.isNaN(wall)) return null;
  // Clocks change on a whole or half hour: one offset serves every line of a half hour of wall time.
  const key = `${zone}\u0000${Math.floor(wall / HALF_HOUR_MS)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = zoneOffset(wall - zoneOffset(wall, zone), zone);
    if (offsets.size >= MAX_OFFSETS) offsets.clear();
    offsets.set(key, offset);
  }
  return wall - offset;
}

const HALF_HOUR_MS = 30 * 60_000;
/** Half hours remembered: a log spans far fewer; a hostile one cannot grow this past the bound. */
const MAX_OFFSETS = 10_000;
const offsets = new Map<string, number>();
