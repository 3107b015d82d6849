import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';

export type IngestReport = InferResponseType<typeof api.ingest.$post, 200>;

/** Sends one NDJSON batch; an API refusal or a failed answer throws an `ApiFailure`. */
export async function postIngest(body: string, signal?: AbortSignal): Promise<IngestReport> {
  return unwrap(
    await api.ingest.$post({}, { headers: { 'content-type': 'application/x-ndjson' }, init: { body, signal } }),
  );
}
