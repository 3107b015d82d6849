import type { DecodeBudget } from './budget.ts';
import { decodeJsonTraces } from './decode-json.ts';
import { decodeProtoTraces } from './decode-proto.ts';
import type { DecodeResult } from './model.ts';

/** OTLP/HTTP trace bodies → native events; pure, no I/O. README.md beside this file says what each span becomes. */

export type OtlpEncoding = 'protobuf' | 'json';

/** An `ExportTraceServiceRequest` body (already gunzipped) in either encoding, refused once past `budget`. */
export function decodeTraces(body: Uint8Array, encoding: OtlpEncoding, budget: DecodeBudget): DecodeResult {
  return encoding === 'protobuf' ? decodeProtoTraces(body, budget) : decodeJsonTraces(body, budget);
}

export { type BudgetPart, DecodeBudget, OTLP_LIMITS, OverBudget } from './budget.ts';
export type { DecodeResult } from './model.ts';
export { encodeJsonResponse, encodeProtoResponse, type PartialSuccess, partialSuccessOf } from './response.ts';
export { type EventItem, type Rejection, type TracesOptions, tracesToEvents } from './to-events.ts';
