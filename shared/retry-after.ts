/**
 * Retry-After as the header carries it (RFC 9110 section 10.2.3): delta-seconds, or an HTTP-date read against the
 * moment the answer was sent. One reader for the events we ingest and the answers our alert deliveries get.
 */

const DELTA_SECONDS = /^\d+(\.\d+)?$/;
// An HTTP-date names its day or month ("Wed, 21 Oct 2026 07:28:00 GMT", RFC 850 and asctime forms alike); without a
// name, Date.parse would read text like "2.5" or "7" as some date.
const NAMES_A_DAY_OR_MONTH = /[A-Za-z]{3}/;

/** Milliseconds to wait from `now`; null when the text is absent or neither form. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (DELTA_SECONDS.test(text)) return Number(text) * 1000;
  if (!NAMES_A_DAY_OR_MONTH.test(text)) return null;
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}

/**
 * An event's `http.retryAfter` in seconds after `ts`: a non-negative number as it is, or the header's own text.
 * Undefined for anything else.
 */
export function retryAfterSeconds(value: unknown, ts: number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const ms = retryAfterMs(value, ts);
  return ms === null ? undefined : ms / 1000;
}
