import { z } from 'zod';
import type { CodeOverride } from './classify/types.ts';

/** An operator's per-server re-mapping of one JSON-RPC code or HTTP status (PUT /servers/:server/overrides). */
const override = z
  .object({
    rpcCode: z.number().int().optional(),
    httpStatus: z.number().int().min(400).max(599).optional(),
    bucket: z.enum(['refusal', 'transient', 'throttled', 'ambiguous']),
    kind: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a short snake_case name such as "rate_limited"'),
  })
  .refine((o) => (o.rpcCode === undefined) !== (o.httpStatus === undefined), {
    message: 'give exactly one of "rpcCode" and "httpStatus"',
  });

export const overridesSchema = z.object({ overrides: z.array(override).max(200) });

export function toCodeOverrides(input: z.output<typeof overridesSchema>): CodeOverride[] {
  return input.overrides.map((o) => ({
    match: o.rpcCode !== undefined ? { rpcCode: o.rpcCode } : { httpStatus: o.httpStatus ?? 0 },
    bucket: o.bucket,
    kind: o.kind,
  }));
}
