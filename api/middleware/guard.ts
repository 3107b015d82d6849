import { timingSafeEqual } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';

/**
 * Refuses requests that did not come from where the dashboard lives. The Host check defeats DNS rebinding (a
 * hostile page whose name now points at 127.0.0.1); the Origin check refuses cross-site browser calls. Neither
 * value is echoed back: the sender knows what it sent, and echoing attacker-chosen text helps nobody else.
 */
export const guard = createMiddleware<Env>(async (c, next) => {
  const { config } = c.var.deps;
  const host = c.req.header('host');
  if (config.allowedHosts !== null && host !== undefined && !config.allowedHosts.includes(hostName(host))) {
    throw new ApiError('foreign_origin', 'this server does not answer to that Host name', {
      fix: 'Call the server by the address it listens on, or add the name with --allow-host.',
    });
  }
  const origin = c.req.header('origin');
  if (origin !== undefined && !originAllowed(origin, host, config.allowedOrigins)) {
    throw new ApiError('foreign_origin', 'requests from that Origin are refused', {
      fix: 'Open the dashboard from the server itself, or add the origin with --allow-origin.',
    });
  }
  await next();
});

export const auth = createMiddleware<Env>(async (c, next) => {
  const { token } = c.var.deps.config;
  if (token !== null && !sameSecret(c.req.header('authorization'), `Bearer ${token}`)) {
    throw new ApiError('unauthenticated', 'this server requires a bearer token', {
      fix: 'Send "Authorization: Bearer <token>" with the token the server was started with (LENS_TOKEN).',
    });
  }
  await next();
});

/** Constant-time comparison, so response timing does not reveal how much of a guessed token was right. */
function sameSecret(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function originAllowed(origin: string, host: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true;
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}
