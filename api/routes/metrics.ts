import { Hono } from 'hono';
import { CONTENT_TYPES, expose, formatFor } from '../../shared/metrics/exposition.ts';
import type { Env } from '../env.ts';
import { metricFamilies } from '../services/metrics/families.ts';

/**
 * Prometheus exposition (README "Prometheus"): the text format, or OpenMetrics when the scraper's Accept header asks
 * for it, as Prometheus does by default.
 */
export const metricsRoutes = new Hono<Env>().get('/metrics', async (c) => {
  const { store, clock, config, processMetrics } = c.var.deps;
  const format = formatFor(c.req.header('accept'));
  const families = await metricFamilies({
    ctx: { db: store, now: clock() },
    input: { labelSets: config.metricsLabelSets, processMetrics },
  });
  c.header('Vary', 'Accept');
  return c.body(expose(families, format), 200, { 'content-type': CONTENT_TYPES[format] });
});
