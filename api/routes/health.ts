import { Hono } from 'hono';
import type { Env } from '../env.ts';

export const healthRoutes = new Hono<Env>().get('/health', (c) => c.json({ status: 'ok' as const }));
