import { z } from 'zod';
import { INSTANT_RANGE, LAST_INSTANT_MS, readIsoInstant } from '../shared/instant.ts';

/**
 * A point in time as ISO 8601 or epoch milliseconds, read from a query string, by the reader every logged time goes
 * through (shared/instant.ts), and held to where events can be before any date arithmetic runs on it.
 * - Epoch milliseconds up to a JavaScript Date's last (8640000000000000, "the whole of time") are clamped to the end
 *   of 9999: no event lies past it, and a day or an hour added to 8.64e15 is no Date (a RangeError, a 500).
 * - ISO 8601 only: V8's Date.parse also reads free text (`-5` is May 2001, `1 2` January 2001), which would turn a
 *   typo into a silent wrong range, and moves a date that does not exist (2026-02-30): both are refused. A date-time
 *   without an offset is UTC, as a date alone is, so that the server's own time zone never moves a window.
 */
export const instant = z.string().transform((value, ctx) => {
  if (/^\d{1,16}$/.test(value) && Number(value) <= MAX_DATE_MS) return Math.min(Number(value), RANGE_END_MS);
  const reading = readIsoInstant(value, { zoned: false });
  if (reading?.ok) return reading.ms;
  const why = reading === null ? '' : `: ${reading.reason}`;
  ctx.addIssue({
    code: 'custom',
    message: `must be an ISO 8601 date-time or epoch milliseconds, ${INSTANT_RANGE}${why}`,
  });
  return z.NEVER;
});

/** An instant as a JSON number: epoch milliseconds in the range every event time lies in. */
export const epochMs = z.number().int().min(0).max(LAST_INSTANT_MS);

/** The last instant a JavaScript Date holds. */
const MAX_DATE_MS = 8.64e15;
/** Where a range that takes in every event ends (ranges exclude their end): just after the last instant. */
const RANGE_END_MS = LAST_INSTANT_MS + 1;

export const rangeParams = z.object({
  from: instant.optional().meta({ description: 'start of the range: ISO 8601 (UTC without an offset) or epoch ms' }),
  to: instant.optional().meta({ description: 'end of the range, excluded: ISO 8601 or epoch ms' }),
  server: z.string().min(1).max(200).optional().meta({ description: "only this server's traffic" }),
  client: z.string().min(1).max(200).optional().meta({ description: "only this client's traffic" }),
});
