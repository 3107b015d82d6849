import { Hono } from 'hono';
import { classifyDbError } from '../../db/errors.ts';
import type { Store } from '../../db/runner.ts';
import {
  DecodeBudget,
  decodeTraces,
  type EventItem,
  encodeJsonResponse,
  encodeProtoResponse,
  type OtlpEncoding,
  partialSuccessOf,
  tracesToEvents,
} from '../../shared/otlp/index.ts';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';
import { inflate, MAX_BATCH_LINES } from '../ingest-body.ts';
import { ingestQuery } from '../ingest-query.ts';
import { limitBody } from '../middleware/body-limit.ts';
import { ingestBatch } from '../services/ingest.ts';
import { validate } from '../validate.ts';

/**
 * OTLP/HTTP traces (https://opentelemetry.io/docs/specs/otlp/#otlphttp) at the standard path, beside the API:
 * spans become native events and go through the same ingest as POST /api/v1/ingest. Failures answer with our JSON
 * error body, not a google.rpc.Status: exporters act on the status code and Retry-After alone, and the codes follow
 * OTLP's rules (400 for a body that does not decode, never retried; 429 and 503 with Retry-After, retried).
 */

/** The body's encoding by its Content-Type: a map, as the sender's text is never an object's key (`constructor`). */
export const OTLP_MEDIA_TYPES = new Map<string, OtlpEncoding>([
  ['application/x-protobuf', 'protobuf'],
  ['application/json', 'json'],
]);
/** `?server=NAME` on the exporter's URL, read as an upload's is: the server these spans are traffic of. */
const otlpQuery = ingestQuery.pick({ server: true });

export const otlpRoutes = new Hono<Env>().post(
  '/v1/traces',
  limitBody(
    (c) => c.var.deps.config.maxBodyBytes,
    "Export smaller batches (the BatchSpanProcessor's maxExportBatchSize) or raise --max-body.",
  ),
  validate('query', otlpQuery),
  async (c) => {
    const { store, config } = c.var.deps;
    const encoding = encodingOf(c.req.header('content-type'));
    const { server } = c.req.valid('query');
    const raw = inflate(
      new Uint8Array(await c.req.arrayBuffer()),
      c.req.header('content-encoding'),
      config.maxBodyBytes,
    );
    // Counted as it is decoded: a body past its budget stops there, having built nothing more (413, what to narrow).
    const decoded = decodeTraces(raw, encoding, new DecodeBudget({ spans: MAX_BATCH_LINES }));
    if (!decoded.ok) {
      if (decoded.over !== null)
        throw new ApiError('payload_too_large', decoded.over.message, { fix: decoded.over.fix });
      throw new ApiError('invalid_request', `the body is no ExportTraceServiceRequest: ${decoded.reason}`, {
        fix: 'Send what an OTLP/HTTP trace exporter sends, with its Content-Type.',
      });
    }
    const { items, rejected } = tracesToEvents(decoded.resources, { server });
    const report = await ingest(store, items);
    c.var.deps.folder.kick();
    // A span that could not become an event is a rejected line of the batch.
    c.var.deps.processMetrics.ingested({ ...report, rejectedTotal: report.rejectedTotal + rejected.length });
    const partial = partialSuccessOf(rejected, items, report);
    // OTLP/HTTP answers in the request's encoding.
    if (encoding === 'json') return c.body(encodeJsonResponse(partial), 200, { 'content-type': 'application/json' });
    return c.body(encodeProtoResponse(partial), 200, { 'content-type': 'application/x-protobuf' });
  },
);

function encodingOf(contentType: string | undefined): OtlpEncoding {
  const encoding = OTLP_MEDIA_TYPES.get(contentType?.split(';')[0]?.trim().toLowerCase() ?? '');
  if (encoding !== undefined) return encoding;
  throw new ApiError('unsupported_media_type', 'that content type is not accepted', {
    fix: 'Send OTLP as "Content-Type: application/x-protobuf" or "application/json".',
  });
}

/**
 * The ingest, with one translation: a full store is our 507, which OTLP clients never retry (only 429, 502, 503,
 * 504), so the batch would be dropped. Here it is a 503 with the same Retry-After, and the exporter tries again.
 */
async function ingest(store: Store, items: readonly EventItem[]) {
  try {
    return await ingestBatch(store, items);
  } catch (error) {
    if (classifyDbError(error) !== 'full') throw error;
    throw new ApiError('unavailable', 'the store has no disk space left; nothing of this request was stored', {
      fix: "Free disk space on the store's volume (or grow it); the exporter's retry is then taken.",
      retryAfterSeconds: 60,
    });
  }
}
