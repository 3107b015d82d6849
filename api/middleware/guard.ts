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
  // HTTP/1.1 requires Host; a request without one must not slip past the rebinding check.
  if (config.allowedHosts !== null && (host === undefined || !config.allowedHosts.includes(hostName(host)))) {
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

/**
 * Two roles, by the bearer token sent. The admin token (LENS_TOKEN) may do everything; the ingest token
 * (LENS_INGEST_TOKEN), which a log shipper holds, may only send logs: with it, any other route is a 403, so a leaked
 * shipper credential reads no traffic and edits no alert rule. No token (or a wrong one) is a 401, as ever.
 */
export const auth = createMiddleware<Env>(async (c, next) => {
  const { token, ingestToken } = c.var.deps.config;
  if (token === null) return next();
  const given = c.req.header('authorization');
  const admin = sameSecret(given, `Bearer ${token}`);
  const ingest = ingestToken !== null && sameSecret(given, `Bearer ${ingestToken}`);
  if (admin) return next();
  if (!ingest) {
    throw new ApiError('unauthenticated', 'this server requires a bearer token', {
      fix: 'Send "Authorization: Bearer <token>" with the token the server was started with (LENS_TOKEN).',
    });
  }
  if (c.req.method === 'POST' && SHIPPER_PATHS.includes(c.req.path)) return next();
  throw new ApiError('forbidden', 'the ingest token may only send logs (POST /api/v1/ingest or /v1/traces)', {
    fix: 'Send the admin token (LENS_TOKEN) for this route; the ingest token (LENS_INGEST_TOKEN) is for log shippers.',
  });
});

/**
 * The API paths anyone may call, token or not: the health check (probes and load balancers hold no token) and the
 * API's own description (it shows routes, never data). Neither reports the analysis lag: the health check's body is
 * the lag, and the description reads no store.
 */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/api/v1/health', '/api/v1/openapi.json']);

/** Where a log shipper sends: our own ingest and OTLP/HTTP's standard traces path. */
const SHIPPER_PATHS = ['/api/v1/ingest', '/v1/traces'];

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
