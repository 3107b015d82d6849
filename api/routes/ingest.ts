import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';
import { decodeIngestBody } from '../ingest-body.ts';
import { ingestBatch } from '../services/ingest.ts';

export const ingestRoutes = new Hono<Env>().post(
  '/ingest',
  (c, next) =>
    bodyLimit({
      maxSize: c.var.deps.config.maxBodyBytes,
      onError: () => {
        throw new ApiError('payload_too_large', `the body is larger than ${c.var.deps.config.maxBodyBytes} bytes`, {
          fix: 'Split the file into smaller batches (the CLI does this for you) or raise --max-body.',
        });
      },
    })(c, next),
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
