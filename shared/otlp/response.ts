import type { EventItem, Rejection } from './to-events.ts';

/**
 * `ExportTraceServiceResponse` (trace_service.proto): `partial_success` (1) holding `rejected_spans` (1, int64) and
 * `error_message` (2), encoded like the request was. A full success leaves `partial_success` unset, as OTLP/HTTP
 * requires: an empty message, zero bytes in protobuf and `{}` in JSON.
 */

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

/** Reasons the message names, and span positions per reason; the count covers all of them. */
const MAX_REASONS = 10;
const MAX_POSITIONS = 5;
/** The report's own shape (api/services/ingest.ts), as far as the answer needs it. */
interface IngestRefusals {
  rejected: readonly { line: number; message: string }[];
  rejectedTotal: number;
}

/**
 * Everything that did not become a stored event: the spans the mapping could not use, and the events the ingest
 * refused, each with the spans it was made from (past the lines the report lists, one span each). The message
 * names each reason once, with where it happened: a body of one bad resource says so in one line, not in 500.
 */
export function partialSuccessOf(
  mapped: readonly Rejection[],
  items: readonly EventItem[],
  report: IngestRefusals,
): PartialSuccess | undefined {
  const spansAt = new Map(items.map((item) => [item.line, item.spans]));
  const refused = report.rejected.map((r) => ({ ordinal: r.line, spans: spansAt.get(r.line) ?? 1, reason: r.message }));
  const rejections = [...mapped, ...refused];
  const unlisted = report.rejectedTotal - report.rejected.length;
  const rejectedSpans = rejections.reduce((sum, r) => sum + r.spans, unlisted);
  if (rejectedSpans === 0) return undefined;
  const byReason = new Map<string, number[]>();
  for (const { reason, ordinal } of rejections) {
    const at = byReason.get(reason);
    if (at === undefined) byReason.set(reason, [ordinal]);
    else at.push(ordinal);
  }
  const reasons = [...byReason].slice(0, MAX_REASONS).map(([reason, at]) => `${reason} (${positions(at)})`);
  if (byReason.size > MAX_REASONS) reasons.push(`${byReason.size - MAX_REASONS} reasons more`);
  if (unlisted > 0) reasons.push(`${unlisted} events more that the ingest refused`);
  const spans = rejectedSpans === 1 ? '1 span' : `${rejectedSpans} spans`;
  return { rejectedSpans, errorMessage: `${spans} could not become events: ${reasons.join('; ')}` };
}

function positions(ordinals: readonly number[]): string {
  if (ordinals.length === 1) return `span ${ordinals[0]}`;
  const more = ordinals.length - MAX_POSITIONS;
  return `spans ${ordinals.slice(0, MAX_POSITIONS).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

export function encodeJsonResponse(partial: PartialSuccess | undefined): string {
  if (partial === undefined) return '{}';
  // int64 is a decimal string in the proto3 JSON mapping.
  const { errorMessage } = partial;
  return JSON.stringify({ partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage } });
}

export function encodeProtoResponse(partial: PartialSuccess | undefined): Uint8Array<ArrayBuffer> {
  if (partial === undefined) return new Uint8Array(0);
  const message = new TextEncoder().encode(partial.errorMessage);
  const inner = [0x08, ...varint(partial.rejectedSpans), 0x12, ...varint(message.length), ...message];
  return Uint8Array.from([0x0a, ...varint(inner.length), ...inner]);
}

/** A non-negative integer (a count, a length) as a protobuf varint. */
function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return bytes;
}
