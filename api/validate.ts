import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { z } from 'zod';
import { ApiError } from './errors.ts';

/** What one `validate` middleware checks: read back by the OpenAPI document (api/openapi/document.ts). */
export interface Validation {
  target: keyof ValidationTargets;
  schema: z.ZodType;
}

const validations = new WeakMap<object, Validation>();

/**
 * The one way handlers read input: a bad query, path or body becomes our 400, naming the member at fault. Handlers
 * then read only `c.req.valid(target)`. Each validator remembers its schema, so the API's description is read from
 * the very middleware that checks the input: the two cannot disagree.
 */
export function validate<Target extends keyof ValidationTargets, Schema extends z.ZodType>(
  target: Target,
  schema: Schema,
) {
  const middleware = zValidator(target, schema, (result) => {
    if (result.success) return;
    const issue = result.error.issues[0];
    const field = issue?.path.map(String).join('.') || undefined;
    const where = field ? `"${field}": ` : '';
    throw new ApiError('invalid_request', `${where}${issue?.message ?? 'invalid input'}`, {
      ...(field !== undefined && { field }),
      fix: `Correct the ${target === 'json' ? 'body' : target} and send the request again.`,
    });
  });
  validations.set(middleware, { target, schema });
  return middleware;
}

/** The input a registered handler checks, when it is a `validate` middleware. */
export function validationOf(handler: object): Validation | undefined {
  return validations.get(handler);
}
