import { Hono } from 'hono';
import type { BatchLine } from '../../shared/batch.ts';
import { isHostFormat } from '../../shared/host-logs/index.ts';
import type { Env } from '../env.ts';
import { decodeIngestBody } from '../ingest-body.ts';
import { hostBatchItems, hostOptions, proxyBatchItems } from '../ingest-formats.ts';
import { ingestQuery } from '../ingest-query.ts';
import { limitBody } from '../middleware/body-limit.ts';
import type { BatchItem } from '../services/ingest.ts';
import { ingestBatch } from '../services/ingest.ts';
import { proxyServerOf } from '../services/proxy-routing.ts';
import { validate } from '../validate.ts';

export const ingestRoutes = new Hono<Env>().post(
  '/ingest',
  limitBody(
    (c) => c.var.deps.config.maxBodyBytes,
    'Split the file into smaller batches (the CLI does this for you) or raise --max-body.',
  ),
  validate('query', ingestQuery),
  async (c) => {
    const { store, config, folder, processMetrics } = c.var.deps;
    const { format, ...names } = c.req.valid('query');
    const serverOf =
      format === 'native' || isHostFormat(format) || names.server !== undefined
        ? undefined
        : await proxyServerOf(store, config.proxyRoutes);
    const readLines: ((lines: BatchLine[]) => BatchItem[]) | undefined =
      format === 'native'
        ? undefined
        : isHostFormat(format)
          ? (lines) => hostBatchItems(lines, format, hostOptions(names))
          : (lines) => proxyBatchItems(lines, format, names, serverOf);
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const items = decodeIngestBody(
      raw,
      c.req.header('content-type'),
      c.req.header('content-encoding'),
      config.maxBodyBytes,
      readLines,
    );
    const report = await ingestBatch(store, items, folder.fresh);
    folder.kick();
    processMetrics.ingested(report);
    return c.json(report);
  },
);
