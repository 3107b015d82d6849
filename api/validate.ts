import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { z } from 'zod';
import { ApiError } from './errors.ts';

/**
 * The one way handlers read input: a bad query, path or body becomes our 400, naming the member at fault. Handlers
 * then read only `c.req.valid(target)`.
 */
export function validate<Target extends keyof ValidationTargets, Schema extends z.ZodType>(
  target: Target,
  schema: Schema,
) {
  return zValidator(target, schema, (result) => {
    if (result.success) return;
    const issue = result.error.issues[0];
    const field = issue?.path.map(String).join('.') || undefined;
    const where = field ? `"${field}": ` : '';
    throw new ApiError('invalid_request', `${where}${issue?.message ?? 'invalid input'}`, {
      ...(field !== undefined && { field }),
      fix: `Correct the ${target === 'json' ? 'body' : target} and send the request again.`,
    });
  });
}
