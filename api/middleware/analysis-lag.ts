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
  const { lagMs, pendingPartitions } = await analysisLag(store);
  if (lagMs > config.maxAnalysisLagMs) {
    throw new ApiError(
      'analysis_behind',
      `the analysis is ${Math.round(lagMs / 1000)} s behind the stored events (${pendingPartitions} partitions to replay); nothing of this request was stored`,
      {
        fix: 'Send the same batch again after Retry-After; GET /api/v1/health reports the lag. If it stays high, raise --max-analysis-lag or give the store more capacity.',
        retryAfterSeconds: RETRY_AFTER_SECONDS,
      },
    );
  }
  await next();
});

/** A replay round runs every second when idle; a few rounds usually bring the oldest partition back in. */
const RETRY_AFTER_SECONDS = 10;
