import type { FieldWarning } from '../event.ts';
import { instantOfClock } from '../instant.ts';
import {
  chomp,
  isBlank,
  keepText,
  type ProxyFacts,
  type ProxyLineOptions,
  type ProxyLineResult,
  present,
  quote,
  readStatus,
  reject,
  splitRequestLine,
  toEvent,
} from './common.ts';

/**
 * One line of nginx's predefined `combined` format, or of the `main` format Debian's and the official packages'
 * nginx.conf define (combined plus `"$http_x_forwarded_for"`), as a native event:
 *
 *     $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"
 *
 * - `ts` is `$time_local` (`02/Dec/2026:02:42:42 +0000`): when the line was written, to the second. The format
 *   logs no `$request_time`, so neither the start of the request nor `latencyMs` can be known.
 * - `"$request"` is the request line. One that is not `METHOD target HTTP/x.y` (`"-"`, an empty line, a TLS
 *   handshake sent to a plain-HTTP port, logged as `\x16\x03\x01...`) keeps its line: method and path are left
 *   absent, the text is kept in `proxy.requestLine`, and a warning says so.
 * - nginx escapes `"`, `\`, control characters and every byte above 126 in a variable as `\xHH` (so a UTF-8 user
 *   agent arrives as `\xC3\xBC`); the bytes are decoded back to text (UTF-8, U+FFFD for bytes that are not).
 *   `\"` and `\\` (Apache's habit) are read too.
 * - No host is logged, so the server comes from the options, else it is `"unknown"` with a warning.
 * - Fields after the ones above (an operator's `$request_time` at the end) are ignored, with a warning.
 */
export function nginxCombinedLineToEvent(line: string, options: ProxyLineOptions = {}): ProxyLineResult {
  if (isBlank(line)) return reject('empty_line', 'the line is empty');
  const parsed = parseCombined(chomp(line));
  if (typeof parsed === 'string') return reject('not_the_format', parsed);
  const warnings: FieldWarning[] = [];
  const ts = parseTimeLocal(parsed.timeLocal);
  if (typeof ts === 'string') return reject('no_timestamp', ts);
  if (ts === undefined) {
    return reject(
      'no_timestamp',
      `the time ${quote(parsed.timeLocal)} is not $time_local (02/Dec/2026:02:42:42 +0000)`,
    );
  }
  const request = decodeEscapes(parsed.request);
  // A request line the line was cut inside is no request line: its target is not the one that was sent.
  const split = present(request) === undefined || parsed.requestCut ? undefined : splitRequestLine(request);
  const proxy: ProxyFacts = {
    remoteAddr: keepText(present(parsed.remoteAddr), 'proxy.remoteAddr', warnings),
    userAgent: keepText(present(decodeOptional(parsed.userAgent)), 'proxy.userAgent', warnings),
    forwardedFor: keepText(present(decodeOptional(parsed.forwardedFor)), 'proxy.forwardedFor', warnings),
  };
  if (split === undefined) {
    warnings.push({
      field: 'http',
      message:
        present(request) === undefined
          ? 'no request line (nginx logged "-"): method and path left absent'
          : parsed.requestCut
            ? 'the line ends inside the request line: method and path left absent'
            : `not a request line (${quote(parsed.request)}): method and path left absent`,
    });
    proxy.requestLine = keepText(present(parsed.request), 'proxy.requestLine', warnings);
  } else {
    proxy.protocol = split.protocol;
  }
  if (parsed.status === undefined) warnings.push({ field: 'http.status', message: 'no status on the line' });
  if (parsed.extra)
    warnings.push({ field: 'line', message: 'fields after the user agent (and X-Forwarded-For) ignored' });
  if (parsed.unterminated) warnings.push({ field: 'line', message: 'a quoted field is not closed: the line was cut' });
  return toEvent(
    {
      ts,
      method: split?.method,
      path: split?.target,
      status: readStatus(parsed.status, 'http.status', warnings),
      proxy,
    },
    options,
    warnings,
  );
}

interface CombinedFields {
  remoteAddr: string;
  remoteUser: string;
  timeLocal: string;
  /** As logged, escapes included. */
  request: string;
  status?: string;
  bytesSent?: string;
  referer?: string;
  userAgent?: string;
  forwardedFor?: string;
  extra: boolean;
  /** A quoted field runs to the end of the line: the line was cut. */
  unterminated: boolean;
  requestCut: boolean;
}

const SPACE = 32;
const QUOTE = 34;
const BACKSLASH = 92;

const FORMAT_HINT =
  'an nginx combined line is: $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent ' +
  '"$http_referer" "$http_user_agent"';

/** Splits a line into the combined format's fields; a message when it is not one. */
function parseCombined(line: string): CombinedFields | string {
  const addrEnd = line.indexOf(' ');
  if (addrEnd <= 0 || !line.startsWith(' - ', addrEnd)) return `not a combined line; ${FORMAT_HINT}`;
  // $remote_user is the client's Basic user name, logged with its spaces: it runs to the " [" of the time.
  const timeStart = line.indexOf(' [', addrEnd + 2);
  if (timeStart === -1) return `no [$time_local]; ${FORMAT_HINT}`;
  const timeEnd = line.indexOf(']', timeStart + 2);
  if (timeEnd === -1) return `no [$time_local]; ${FORMAT_HINT}`;
  if (!line.startsWith(' "', timeEnd + 1)) return `no quoted "$request" after the time; ${FORMAT_HINT}`;
  const fields: CombinedFields = {
    remoteAddr: line.slice(0, addrEnd),
    remoteUser: line.slice(addrEnd + 3, timeStart),
    timeLocal: line.slice(timeStart + 2, timeEnd),
    request: '',
    extra: false,
    unterminated: false,
    requestCut: false,
  };
  const request = readQuoted(line, timeEnd + 2);
  fields.request = request.text;
  fields.unterminated = request.unterminated;
  fields.requestCut = request.unterminated;
  let at = request.next;
  const status = readBare(line, at);
  if (status === undefined) return fields;
  fields.status = status.text;
  at = status.next;
  const bytes = readBare(line, at);
  if (bytes === undefined) return fields;
  fields.bytesSent = bytes.text;
  at = bytes.next;
  const quoted: string[] = [];
  while (quoted.length < 3 && line.charCodeAt(at) === SPACE && line.charCodeAt(at + 1) === QUOTE) {
    const next = readQuoted(line, at + 1);
    quoted.push(next.text);
    fields.unterminated ||= next.unterminated;
    at = next.next;
  }
  [fields.referer, fields.userAgent, fields.forwardedFor] = quoted;
  fields.extra = at < line.length && line.slice(at).trim().length > 0;
  return fields;
}

/** A `"..."` field starting at `start` (its opening quote): its text as logged, and where the line goes on. */
function readQuoted(line: string, start: number): { text: string; next: number; unterminated: boolean } {
  let i = start + 1;
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return { text: line.slice(start + 1, i), next: i + 1, unterminated: false };
    else i++;
  }
  return { text: line.slice(start + 1), next: line.length, unterminated: true };
}

/** A space, then a field without spaces. */
function readBare(line: string, at: number): { text: string; next: number } | undefined {
  if (line.charCodeAt(at) !== SPACE) return undefined;
  let end = line.indexOf(' ', at + 1);
  if (end === -1) end = line.length;
  if (end === at + 1) return undefined;
  return { text: line.slice(at + 1, end), next: end };
}

const MONTHS: Record<string, number> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};
const TIME_LOCAL = /^(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/;

/**
 * `$time_local`, `02/Dec/2026:02:42:42 +0000`, as epoch milliseconds; undefined when the text is no `$time_local`,
 * why not when it is one but no real instant (`30/Feb/2026`: shared/instant.ts).
 */
export function parseTimeLocal(text: string): number | string | undefined {
  const m = TIME_LOCAL.exec(text);
  if (m === null) return undefined;
  const [, day, monthName, year, hour, minute, second, sign, zoneHours, zoneMinutes] = m;
  const month = Object.hasOwn(MONTHS, monthName as string) ? MONTHS[monthName as string] : undefined;
  if (month === undefined) return undefined;
  const offset = Number(zoneMinutes) > 59 ? Number.NaN : Number(zoneHours) * 60 + Number(zoneMinutes);
  const reading = instantOfClock({
    year: Number(year),
    month: month + 1,
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
    millisecond: 0,
    offsetMinutes: sign === '+' ? offset : -offset,
  });
  return reading.ok ? reading.ms : `the time ${quote(text)} is no real instant: ${reading.reason}`;
}

function decodeOptional(text: string | undefined): string | undefined {
  return text === undefined ? undefined : decodeEscapes(text);
}

const decoder = new TextDecoder('utf-8');

/**
 * Text as nginx escaped it, decoded: runs of `\xHH` are bytes, read as UTF-8; `\"` and `\\` are the character.
 * Text without a backslash is returned as it is.
 */
export function decodeEscapes(text: string): string {
  if (!text.includes('\\')) return text;
  let out = '';
  let plainStart = 0;
  let i = 0;
  while (i < text.length) {
    if (text.charCodeAt(i) !== BACKSLASH) {
      i++;
      continue;
    }
    out += text.slice(plainStart, i);
    const bytes: number[] = [];
    while (text.charCodeAt(i) === BACKSLASH && text.charCodeAt(i + 1) === 120 /* x */ && isHexPair(text, i + 2)) {
      bytes.push(Number.parseInt(text.slice(i + 2, i + 4), 16));
      i += 4;
    }
    if (bytes.length > 0) {
      out += decoder.decode(new Uint8Array(bytes));
    } else if (i + 1 < text.length) {
      // `\"`, `\\`, or a backslash before anything else: the character after it.
      out += text[i + 1];
      i += 2;
    } else {
      out += '\\';
      i++;
    }
    plainStart = i;
  }
  return out + text.slice(plainStart);
}

function isHexPair(text: string, at: number): boolean {
  return at + 2 <= text.length && isHex(text.charCodeAt(at)) && isHex(text.charCodeAt(at + 1));
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}
