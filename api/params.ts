import { z } from 'zod';

/** A point in time as ISO 8601 or epoch milliseconds, read from a query string. */
export const instant = z.string().transform((value, ctx) => {
  const ms = /^\d+$/.test(value) ? Number(value) : isoInstant(value);
  // Event times lie in [0, 8.64e15] (the range of a JavaScript Date); a bound outside it is a mistake.
  if (!Number.isFinite(ms) || ms < 0 || ms > 8.64e15) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time or epoch milliseconds (1970 to 275760)' });
    return z.NEVER;
  }
  return ms;
});

export const rangeParams = z.object({
  from: instant.optional().meta({ description: 'start of the range: ISO 8601 (UTC without an offset) or epoch ms' }),
  to: instant.optional().meta({ description: 'end of the range, excluded: ISO 8601 or epoch ms' }),
  server: z.string().min(1).max(200).optional().meta({ description: "only this server's traffic" }),
  client: z.string().min(1).max(200).optional().meta({ description: "only this client's traffic" }),
});

/**
 * ISO 8601 only: V8's Date.parse also reads free text (`-5` is May 2001, `1 2` January 2001), which would turn a typo
 * into a silent wrong range. A date-time without an offset is UTC, as a date alone is, so that the server's own time
 * zone never moves a window.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function isoInstant(value: string): number {
  const match = ISO_INSTANT.exec(value);
  if (match === null) return Number.NaN;
  return Date.parse(value.includes('T') && match[1] === undefined ? `${value}Z` : value);
}
