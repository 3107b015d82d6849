/**
 * The one reader of the times logs carry (native `ts`, nginx's `msec`, `$time_iso8601` and `$time_local`, Envoy's
 * `%START_TIME%`, the API's `from` and `to`): what it answers is a real instant an event can have, or why not.
 *
 * - A date that does not exist is refused, never moved: `Date.UTC` and `Date.parse` read 2026-02-30 as March 2nd
 *   and 24:00 as the next day, so a typo or a corrupt line would be stored at a time nobody wrote.
 * - Instants run from 1970 to the end of year 9999. Past it ISO 8601 needs a sign and six digits for the year
 *   (`+010000-01-01`), which a PostgreSQL day partition's name would take in (`events_p+…`), and every format we
 *   read writes four; an nginx `msec` of 999999999999 is such a time. Before 1970 is no time of traffic either.
 */

/** The last instant an event may have: 9999-12-31T23:59:59.999Z. */
export const LAST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export type InstantReading = { ok: true; ms: number } | { ok: false; reason: string };

/** The range every reading is held to, as words for an error message. */
export const INSTANT_RANGE = 'from 1970-01-01 to 9999-12-31 (UTC)';

export interface WallClock {
  year: number;
  /** 1 to 12. */
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** 60 is a leap second, read as the next minute's start, as POSIX time has it. */
  second: number;
  millisecond: number;
  /** East of UTC, in minutes: +01:00 is 60. */
  offsetMinutes: number;
}

/** A wall-clock reading as an instant, refused when any part is out of its range or the date does not exist. */
export function instantOfClock(clock: WallClock): InstantReading {
  const { year, month, day, hour, minute, second, millisecond, offsetMinutes } = clock;
  if (month < 1 || month > 12) return refused(`month ${month} does not exist`);
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) return refused(`${pad(year, 4)}-${pad(month, 2)} has no day ${day} (it has ${days})`);
  if (hour > 23 || minute > 59 || second > 60) return refused(`${hour}:${minute}:${second} is no time of day`);
  if (!(Math.abs(offsetMinutes) < 24 * 60)) return refused('the offset from UTC is no offset (up to ±23:59)');
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millisecond);
  return instantOfMs(date.getTime() - offsetMinutes * 60_000);
}

/** Epoch milliseconds, held to the range (an integer). */
export function instantOfMs(ms: number): InstantReading {
  if (!Number.isInteger(ms)) return refused('epoch milliseconds are a whole number');
  if (ms < 0) return refused(`it is before 1970; times run ${INSTANT_RANGE}`);
  if (ms > LAST_INSTANT_MS) return refused(`it is after the year 9999; times run ${INSTANT_RANGE}`);
  return { ok: true, ms };
}

// Date, optional time (hours and minutes at least), optional offset: the caller says whether one is required.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

export interface IsoOptions {
  /** Whether the text must carry a time and a zone (`Z` or ±hh:mm), as a logged time must; else UTC is assumed. */
  zoned: boolean;
}

/**
 * An ISO 8601 date-time (RFC 3339's profile: four-digit year, `T`, `Z` or an offset), or null when the text is not
 * one at all, so that the caller can say what it expected. Digits past milliseconds are dropped, not rounded.
 */
export function readIsoInstant(text: string, { zoned }: IsoOptions): InstantReading | null {
  const m = ISO.exec(text);
  if (m === null) return null;
  const [, year, month, day, hour, minute, second, fraction, zone] = m;
  if (zoned && (hour === undefined || zone === undefined)) return null;
  return instantOfClock({
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour ?? 0),
    minute: Number(minute ?? 0),
    second: Number(second ?? 0),
    millisecond: Number(`${fraction ?? ''}000`.slice(0, 3)),
    offsetMinutes: offsetOf(zone),
  });
}

function offsetOf(zone: string | undefined): number {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const digits = zone.replace(':', '');
  const [hours, minutes] = [Number(digits.slice(1, 3)), Number(digits.slice(3, 5))];
  if (minutes > 59) return Number.NaN;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function refused(reason: string): InstantReading {
  return { ok: false, reason };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
