import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';

/**
 * Refuses a body over `limit(c)` bytes with our 413 before it is read whole (Content-Length first, then counted
 * as it streams). Every route that takes a body goes through this.
 */
export function limitBody(limit: (c: Context<Env>) => number, fix: string) {
  return createMiddleware<Env>((c, next) => {
    const maxSize = limit(c);
    return bodyLimit({
      maxSize,
      onError: () => {
        throw new ApiError('payload_too_large', `the body is larger than ${maxSize} bytes`, { fix });
      },
    })(c, next);
  });
}
