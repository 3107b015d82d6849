import { z } from 'zod';

/** A point in time as ISO 8601 or epoch milliseconds, read from a query string. */
export const instant = z.string().transform((value, ctx) => {
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  // Event times lie in [0, 8.64e15] (the range of a JavaScript Date); a bound outside it is a mistake.
  if (!Number.isFinite(ms) || ms < 0 || ms > 8.64e15) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time or epoch milliseconds (1970 to 275760)' });
    return z.NEVER;
  }
  return ms;
});

export const rangeParams = z.object({
  from: instant.optional(),
  to: instant.optional(),
  server: z.string().min(1).max(200).optional(),
  client: z.string().min(1).max(200).optional(),
});
