import { z } from 'zod';

/** A point in time as ISO 8601 or epoch milliseconds, read from a query string. */
export const instant = z.string().transform((value, ctx) => {
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time or epoch milliseconds' });
    return z.NEVER;
  }
  return ms;
});

export const rangeQuery = z.object({
  from: instant.optional(),
  to: instant.optional(),
  server: z.string().min(1).max(200).optional(),
  client: z.string().min(1).max(200).optional(),
});
