import { Hono } from 'hono';
import { pendingLag } from '../../db/queries/gate-pending.ts';
import type { Env } from '../env.ts';

/**
 * Up, and how far the gate verdicts trail the stored events: the partitions whose replay runs behind the commit
 * (api/services/gate-maintenance.ts) and since how long the oldest has waited. Answers 503 when the store does not.
 */
export const healthRoutes = new Hono<Env>().get('/health', async (c) => {
  const { partitions, since } = await pendingLag(c.var.deps.store);
  return c.json({
    status: 'ok' as const,
    analysis: { pendingPartitions: partitions, lagMs: since === null ? 0 : Math.max(0, Date.now() - since) },
  });
});
