import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';

export interface RateLimit {
  /** Requests a caller may send at once. */
  burst: number;
  /** Requests per second a caller gets back. */
  perSecond: number;
}

/** Callers remembered at once; past this the longest idle are forgotten (a full bucket is no loss to forget). */
const MAX_CALLERS = 10_000;

/**
 * Token buckets per caller: each request takes a token, tokens come back at `perSecond` up to `burst`. On the real
 * monotonic clock, not the app's: this is about load on this process, not about the traffic's time.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes a token for `caller`; answers 0 when it may go on, else the seconds until a token is back. */
  take(caller: string): number {
    const now = this.now();
    const held = this.buckets.get(caller);
    const elapsed = held === undefined ? 0 : (now - held.at) / 1000;
    const tokens = Math.min(this.limit.burst, (held?.tokens ?? this.limit.burst) + elapsed * this.limit.perSecond);
    // Re-inserted, so the map's order is least recently seen first.
    this.buckets.delete(caller);
    if (this.buckets.size >= MAX_CALLERS) this.buckets.delete(this.buckets.keys().next().value as string);
    if (tokens < 1) {
      this.buckets.set(caller, { tokens, at: now });
      return Math.ceil((1 - tokens) / this.limit.perSecond);
    }
    this.buckets.set(caller, { tokens: tokens - 1, at: now });
    return 0;
  }
}

/** 429 with Retry-After once a caller has spent its bucket: our API practises the rate rule it measures. */
export function rateLimit(buckets: TokenBuckets, what: string) {
  return createMiddleware<Env>(async (c, next) => {
    const wait = buckets.take(callerOf(c));
    if (wait > 0) {
      throw new ApiError('rate_limited', `too many ${what} requests from this caller`, {
        fix: `Wait ${wait} s (Retry-After), then send at a steadier rate; batch more lines per request.`,
        retryAfterSeconds: wait,
      });
    }
    await next();
  });
}

/** Who is calling: the bearer token when one is sent, else the peer address, else one shared local caller. */
function callerOf(c: Context<Env>): string {
  const authorization = c.req.header('authorization');
  if (authorization !== undefined) return `token:${authorization}`;
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return `peer:${incoming?.socket?.remoteAddress ?? 'local'}`;
}
