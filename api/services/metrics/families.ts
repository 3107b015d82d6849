import type { MetricFamily } from '../../../shared/metrics/exposition.ts';
import type { ProcessMetrics } from '../process-metrics.ts';
import type { ServiceContext } from '../service-context.ts';
import { federationMetrics } from './federation.ts';
import { healthMetrics } from './health.ts';

/**
 * Everything GET /metrics exposes: the federation's numbers and the product's own health. Reads maintained counts
 * and indexes only, never the events, so a scrape costs the same at any size of store.
 */
export async function metricFamilies({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { labelSets: number; processMetrics: ProcessMetrics };
}): Promise<MetricFamily[]> {
  const [federation, health] = await Promise.all([
    federationMetrics(ctx.db, ctx.now, input.labelSets),
    healthMetrics(ctx.db, input.processMetrics),
  ]);
  return [...federation, ...health];
}
