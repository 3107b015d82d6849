import { Hono } from 'hono';
import { storedEventSpan } from '../../db/queries/event-span.ts';
import type { Env } from '../env.ts';

/**
 * Where the stored events lie in time, whatever range a screen shows: the dashboard offers it when a range is empty
 * but the store is not (a log of last week, opened on the last 24 hours). Hour counts can reach further back than
 * the events once retention has run: /health's `kept` says from when.
 */
export const spanRoutes = new Hono<Env>().get('/span', async (c) => {
  const span = await storedEventSpan(c.var.deps.store);
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return c.json({ first: iso(span?.first), last: iso(span?.last) });
});
