import { z } from 'zod';
import { type ErrorCode, statusOfCode } from '../errors.ts';
import { ERROR_CODES } from '../services/service-error.ts';
import type { Operation } from './operations.ts';

/** What each code means to a caller, in one line: the error answers' descriptions in the document. */
const MEANING: Record<ErrorCode, string> = {
  invalid_request: 'the query, path or body is wrong; `field` names the member at fault',
  invalid_discovery: 'the document is no discovery document, Agent Card or server card this server reads',
  invalid_encoding: 'the body is not valid gzip or UTF-8',
  secret_required:
    "a saved target's URL changes and its secret (a PagerDuty routing key) was not sent again; `field` names it",
  unauthenticated: 'the server was started with a token (LENS_TOKEN) and none, or a wrong one, was sent',
  foreign_origin: 'a Host or Origin this server does not answer to',
  forbidden: 'the ingest token (LENS_INGEST_TOKEN) on a route other than log ingest',
  not_found: 'nothing has that name or id',
  payload_too_large:
    'the body is over the limit, before or after decompression, holds over 100,000 lines, or (OTLP) more resources, scopes, spans, attributes, events or JSON nesting than one batch may; `message` names which, `fix` what to narrow',
  unsupported_media_type: 'a Content-Type or Content-Encoding this route does not take',
  rate_limited: 'the caller (its token, else its address) is past its token bucket; wait for Retry-After',
  internal: 'a fault of the server: sending again will not help; its log has the X-Request-Id',
  unavailable:
    'not possible yet (OTLP: the store has no disk space left; a preview: the storms of older events are still being built); retry after Retry-After',
  analysis_behind: 'the analysis trails the stored events past --max-analysis-lag; send again after Retry-After',
  store_unavailable: 'the database connection was lost or refused; retry after Retry-After',
  store_busy: 'the database was busy with a conflicting write; retry after Retry-After',
  store_full: 'the store has no disk space left; retry after Retry-After, once an operator frees some',
  store_read_only: 'the store is read-only; retry after Retry-After, once an operator makes it writable',
};

/** The one error body every refusal has (api/errors.ts ErrorBody); tests hold real refusals to it. */
export const errorBody = z.object({
  error: z.object({
    code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    fix: z.string().optional().meta({ description: 'what to change so that the request succeeds' }),
    retryable: z.boolean().meta({ description: 'whether sending the same request again can succeed' }),
    retryAfterSeconds: z.number().int().optional().meta({ description: 'when retryable: how long to wait first' }),
    field: z.string().optional().meta({ description: 'the input member at fault' }),
  }),
});

/**
 * The refusals a route can answer: those of the middleware every documented route runs behind (the Host and Origin
 * guard, the rate limits, the token unless the route is open), of its validators and body limit, of the store it
 * reads or writes, and the ones its operation names.
 */
export function refusalsOf(operation: Operation, input: { open: boolean; validated: boolean; body: boolean }) {
  const codes = new Set<ErrorCode>(['foreign_origin', 'rate_limited', 'internal']);
  if (!input.open) codes.add('unauthenticated').add('forbidden');
  if (input.validated) codes.add('invalid_request');
  if (input.body) codes.add('payload_too_large');
  const store = operation.store ?? 'reads';
  if (store !== 'none') codes.add('store_unavailable').add('store_busy');
  if (store === 'writes') codes.add('store_full').add('store_read_only');
  for (const code of operation.refusals ?? []) codes.add(code);
  return codes;
}

/** The error answers of a route, one per status, each naming its codes and, when waiting helps, Retry-After. */
export function errorResponses(codes: Iterable<ErrorCode>) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = statusOfCode(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const statuses = [...byStatus.keys()].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => {
      const answered = byStatus.get(status) ?? [];
      const response = {
        description: answered.map((code) => `\`${code}\`: ${MEANING[code]}.`).join(' '),
        ...(answered.some((code) => ERROR_CODES[code].retryable) && {
          headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        }),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
      return [String(status), response];
    }),
  );
}
