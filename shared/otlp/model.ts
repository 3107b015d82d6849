import type { OverBudget } from './budget.ts';

/**
 * What the two OTLP decoders (protobuf and JSON) both produce: the few parts of an `ExportTraceServiceRequest` the
 * span mapping reads, in one shape, so that the mapping never knows which encoding a body came in.
 */

/**
 * An attribute value. Key-value lists and bytes become null: no span the mapping reads carries one, and keeping
 * them would only cost memory on the ingest path.
 */
export type AttrValue = string | number | boolean | null | readonly AttrValue[];
/** A Map, not an object: attribute keys are sender-chosen text, `__proto__` included. */
export type Attributes = ReadonlyMap<string, AttrValue>;

export interface SpanEvent {
  name: string;
  attributes: Attributes;
}

export interface Span {
  /** 32 lowercase hex digits, never all zero. */
  traceId: string;
  /** 16 lowercase hex digits, never all zero. */
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  /** W3C trace flags in the low byte, the has-is-remote and is-remote bits above (SpanFlags in trace.proto). */
  flags: number;
  /** Nanoseconds since the epoch, above zero. */
  startNs: bigint;
  /** 0n when the sender gave none. */
  endNs: bigint;
  attributes: Attributes;
  events: readonly SpanEvent[];
  status: { code: number; message: string };
}

/** A span as it came, or why it cannot be one: the mapping reports the latter as a rejected span. */
export type SpanEntry = { ok: true; span: Span } | { ok: false; reason: string };

export interface ScopeSpans {
  /** The instrumentation scope's name: it says which library wrote the spans. */
  scope: string;
  spans: SpanEntry[];
}

export interface ResourceSpans {
  resource: Attributes;
  scopes: ScopeSpans[];
}

export type DecodeResult =
  | { ok: true; resources: ResourceSpans[] }
  /** `over`: the body is past its decode budget (a 413, what to narrow), rather than no body OTLP sends (a 400). */
  | { ok: false; over: OverBudget | null; reason: string };

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
export const STATUS_ERROR = 2;

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO = /^0+$/;

/** A span both decoders built, checked once: ids W3C allows, and a start time (the event's `ts`). */
export function checkSpan(span: Span): SpanEntry {
  if (!TRACE_ID.test(span.traceId) || ZERO.test(span.traceId)) {
    return { ok: false, reason: 'the trace id is not 16 bytes, or is all zero' };
  }
  if (!SPAN_ID.test(span.spanId) || ZERO.test(span.spanId)) {
    return { ok: false, reason: 'the span id is not 8 bytes, or is all zero' };
  }
  if (span.parentSpanId !== '' && !SPAN_ID.test(span.parentSpanId)) {
    return { ok: false, reason: 'the parent span id is not 8 bytes' };
  }
  if (span.startNs <= 0n) return { ok: false, reason: 'the span has no start time' };
  // Some writers send an all-zero parent for a root, where W3C means "none".
  return { ok: true, span: ZERO.test(span.parentSpanId) ? { ...span, parentSpanId: '' } : span };
}
