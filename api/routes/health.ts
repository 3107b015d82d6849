import { Hono } from 'hono';
import type { Env } from '../env.ts';
import { analysisLag } from '../services/analysis-lag.ts';
import { keptData } from '../services/retention.ts';

/**
 * Up, and how far the analysis trails the stored events (api/services/analysis-lag.ts), beside the lag past which
 * ingest refuses batches; and where the kept events and counts begin (retention). Answers 503 when the store does not
 * answer.
 */
export const healthRoutes = new Hono<Env>().get('/health', async (c) => {
  const { store, config } = c.var.deps;
  const [analysis, kept] = await Promise.all([analysisLag(store), keptData(store)]);
  return c.json({ status: 'ok' as const, analysis: { ...analysis, maxLagMs: config.maxAnalysisLagMs }, kept });
});
