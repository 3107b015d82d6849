import { Hono } from 'hono';
import type { Env } from '../env.ts';
import { decodeIngestBody } from '../ingest-body.ts';
import { limitBody } from '../middleware/body-limit.ts';
import { ingestBatch } from '../services/ingest.ts';

export const ingestRoutes = new Hono<Env>().post(
  '/ingest',
  limitBody(
    (c) => c.var.deps.config.maxBodyBytes,
    'Split the file into smaller batches (the CLI does this for you) or raise --max-body.',
  ),
  async (c) => {
    const { store, config } = c.var.deps;
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const items = decodeIngestBody(
      raw,
      c.req.header('content-type'),
      c.req.header('content-encoding'),
      config.maxBodyBytes,
    );
    return c.json(await ingestBatch(store, items));
  },
);
