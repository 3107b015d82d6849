import { createMiddleware } from 'hono/factory';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';
import { analysisLag } from '../services/analysis-lag.ts';

/**
 * Back-pressure: once the analysis trails the events by more than `--max-analysis-lag`, ingest refuses new batches
 * (503, Retry-After) instead of letting the lag grow without bound. Nothing already accepted is touched; the shipper
 * sends the same batch again later, and dedupe makes that safe. What the product asks of clients, applied to itself.
 */
export const refuseWhenBehind = createMiddleware<Env>(async (c, next) => {
  const { store, config } = c.var.deps;
  const { lagMs, pendingEvents, pendingPartitions } = await analysisLag(store);
  if (lagMs > config.maxAnalysisLagMs) {
    throw new ApiError(
      'analysis_behind',
      `the analysis is ${Math.round(lagMs / 1000)} s behind the stored events (${pendingEvents} events to fold, ${pendingPartitions} partitions to replay); nothing of this request was stored`,
      {
        fix: 'Send the same batch again after Retry-After; GET /api/v1/health reports the lag. If it stays high, raise --max-analysis-lag or give the store more capacity.',
        retryAfterSeconds: RETRY_AFTER_SECONDS,
      },
    );
  }
  await next();
});

/** A fold takes ~0.5 s and a replay round runs every second when idle: a few rounds usually bring the oldest back in. */
const RETRY_AFTER_SECONDS = 10;

/**
 * Every read says how far the analysis it answers from trails the stored events, in two headers, so a client can
 * tell a number that may still rise from a settled one: `Lens-Analysed-Through` (ISO time) and `Lens-Analysis-Lag-Ms`.
 */
export const reportLag = createMiddleware<Env>(async (c, next) => {
  const lag = await analysisLag(c.var.deps.store);
  await next();
  c.header('Lens-Analysed-Through', lag.analysedThrough);
  c.header('Lens-Analysis-Lag-Ms', String(lag.lagMs));
});
