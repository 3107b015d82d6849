import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import type { IngestQuery } from './ingest-query.ts';

export type IngestReport = InferResponseType<typeof api.ingest.$post, 200>;

/**
 * Sends one batch of lines: native NDJSON, or with `query.format` one access-log line per line (as text/plain).
 * An API refusal or a failed answer throws an `ApiFailure`.
 */
export async function postIngest(body: string, query: IngestQuery = {}, signal?: AbortSignal): Promise<IngestReport> {
  const args: { query: IngestQuery } = { query };
  const type = query.format === undefined ? 'application/x-ndjson' : 'text/plain; charset=utf-8';
  return unwrap(await api.ingest.$post(args, { headers: { 'content-type': type }, init: { body, signal } }));
}
