import { formatAgo, formatDateTime, formatDay, formatTime } from '../format.ts';

/** When some events happened: the first and the last one's time, epoch ms. */
export interface Span {
  first: number;
  last: number;
}

const MINUTE_MS = 60_000;

/** A span as the API answers it (ISO, or null for none), read. */
export function readSpan(span: { first: string | null; last: string | null } | null | undefined): Span | null {
  if (span == null || span.first === null || span.last === null) return null;
  const first = Date.parse(span.first);
  const last = Date.parse(span.last);
  return Number.isFinite(first) && Number.isFinite(last) ? { first, last } : null;
}

/** Both spans together: the batches of one upload, the files of one screen. */
export function widenSpan(a: Span | null, b: Span | null): Span | null {
  if (a === null) return b;
  if (b === null) return a;
  return { first: Math.min(a.first, b.first), last: Math.max(a.last, b.last) };
}

/**
 * The window that shows a span: whole minutes, from the minute of the first event to the end of the last one's.
 * Counts are kept per minute, so whole minutes show exactly these events (and any others of those minutes).
 */
export function spanWindow(span: Span): { from: number; to: number } {
  const from = Math.floor(span.first / MINUTE_MS) * MINUTE_MS;
  return { from, to: Math.floor(span.last / MINUTE_MS) * MINUTE_MS + MINUTE_MS };
}

/** "28 Nov 02:42:42 – 02:47:10 UTC", the end's date said only when it is another day; one time for one instant. */
export function spanText(span: Span): string {
  if (span.first === span.last) return formatDateTime(span.first);
  const sameDay = formatDay(span.first) === formatDay(span.last);
  const end = sameDay ? `${formatTime(span.last)} UTC` : formatDateTime(span.last);
  return `${formatDay(span.first)} ${formatTime(span.first)} – ${end}`;
}

/** Where the stored events are, for a screen whose range holds none of them. */
export function storedText(span: Span, now: number): string {
  const ago = formatAgo(span.last, now);
  if (span.first === span.last) return `The stored events all happened at ${spanText(span)} (${ago}).`;
  return `The stored events run from ${spanText(span).replace(' – ', ' to ')} (the newest ${ago}).`;
}
