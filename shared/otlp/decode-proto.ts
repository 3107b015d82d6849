import { type DecodeBudget, OverBudget } from './budget.ts';
import {
  type Attributes,
  type AttrValue,
  checkSpan,
  type DecodeResult,
  type ResourceSpans,
  type ScopeSpans,
  type Span,
  type SpanEntry,
  type SpanEvent,
} from './model.ts';
import { ProtoError, ProtoReader as Reader, WIRE } from './proto-reader.ts';

/**
 * `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest` from its protobuf encoding. Field numbers are
 * those of opentelemetry-proto's trace_service.proto, trace.proto, common.proto and resource.proto; fields not
 * listed here are skipped, as proto3 requires of a reader. A span whose own bytes do not decode is reported as that
 * span's defect (its length prefix still frames it), so one bad span costs only itself; anything wrong outside the
 * spans leaves nothing to trust and fails the body. Every resource, scope, span, attribute, event and array member is
 * spent from the body's budget (budget.ts) before it is built, so a body over it stops there.
 */

/** Array values nested deeper than this are kept as null: no attribute the mapping reads nests at all. */
const MAX_VALUE_DEPTH = 8;

export function decodeProtoTraces(body: Uint8Array, budget: DecodeBudget): DecodeResult {
  try {
    const resources: ResourceSpans[] = [];
    const r = new Reader(body);
    while (!r.done()) {
      const { field, wire } = r.tag();
      if (field === 1 && wire === WIRE.len) {
        budget.spend('resources');
        resources.push(resourceSpans(r.message(), budget));
      } else r.skip(wire);
    }
    return { ok: true, resources };
  } catch (error) {
    if (error instanceof OverBudget) return { ok: false, over: error, reason: error.message };
    if (!(error instanceof ProtoError)) throw error;
    return { ok: false, over: null, reason: error.message };
  }
}

function resourceSpans(r: Reader, budget: DecodeBudget): ResourceSpans {
  let resource: Attributes = new Map();
  const scopes: ScopeSpans[] = [];
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WIRE.len) resource = resourceAttributes(r.message(), budget);
    else if (field === 2 && wire === WIRE.len) {
      budget.spend('scopes');
      scopes.push(scopeSpans(r.message(), budget));
    } else r.skip(wire);
  }
  return { resource, scopes };
}

function resourceAttributes(r: Reader, budget: DecodeBudget): Attributes {
  const attributes = new Map<string, AttrValue>();
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WIRE.len) keyValue(r.message(), attributes, budget);
    else r.skip(wire);
  }
  return attributes;
}

function scopeSpans(r: Reader, budget: DecodeBudget): ScopeSpans {
  let scope = '';
  const spans: SpanEntry[] = [];
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WIRE.len) scope = scopeName(r.message());
    else if (field === 2 && wire === WIRE.len) {
      budget.spend('spans');
      spans.push(spanEntry(r.message(), budget));
    } else r.skip(wire);
  }
  return { scope, spans };
}

function scopeName(r: Reader): string {
  let name = '';
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WIRE.len) name = r.string();
    else r.skip(wire);
  }
  return name;
}

function spanEntry(r: Reader, budget: DecodeBudget): SpanEntry {
  try {
    return checkSpan(span(r, budget));
  } catch (error) {
    if (!(error instanceof ProtoError)) throw error;
    return { ok: false, reason: `the span does not decode (${error.message})` };
  }
}

function span(r: Reader, budget: DecodeBudget): Span {
  const attributes = new Map<string, AttrValue>();
  const events: SpanEvent[] = [];
  const s: Span = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    name: '',
    kind: 0,
    flags: 0,
    startNs: 0n,
    endNs: 0n,
    attributes,
    events,
    status: { code: 0, message: '' },
  };
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (wire === WIRE.len && field === 1) s.traceId = hex(r.bytes());
    else if (wire === WIRE.len && field === 2) s.spanId = hex(r.bytes());
    else if (wire === WIRE.len && field === 4) s.parentSpanId = hex(r.bytes());
    else if (wire === WIRE.len && field === 5) s.name = r.string();
    else if (wire === WIRE.varint && field === 6) s.kind = r.uint32();
    else if (wire === WIRE.fixed64 && field === 7) s.startNs = r.fixed64();
    else if (wire === WIRE.fixed64 && field === 8) s.endNs = r.fixed64();
    else if (wire === WIRE.len && field === 9) keyValue(r.message(), attributes, budget);
    else if (wire === WIRE.len && field === 11) {
      budget.spend('events');
      events.push(spanEvent(r.message(), budget));
    } else if (wire === WIRE.len && field === 15) s.status = status(r.message());
    else if (wire === WIRE.fixed32 && field === 16) s.flags = r.fixed32();
    else r.skip(wire);
  }
  return s;
}

function spanEvent(r: Reader, budget: DecodeBudget): SpanEvent {
  let name = '';
  const attributes = new Map<string, AttrValue>();
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 2 && wire === WIRE.len) name = r.string();
    else if (field === 3 && wire === WIRE.len) keyValue(r.message(), attributes, budget);
    else r.skip(wire);
  }
  return { name, attributes };
}

function status(r: Reader): Span['status'] {
  const result = { code: 0, message: '' };
  while (!r.done()) {
    const { field, wire } = r.tag();
    // Field 1 is the reserved deprecated_code of OTLP before 0.9; 3 is the code.
    if (field === 2 && wire === WIRE.len) result.message = r.string();
    else if (field === 3 && wire === WIRE.varint) result.code = r.uint32();
    else r.skip(wire);
  }
  return result;
}

/** One KeyValue into `into`; one without a key (a dictionary-indexed one, `key_strindex`) is left out. */
function keyValue(r: Reader, into: Map<string, AttrValue>, budget: DecodeBudget): void {
  budget.spend('attributes');
  let key = '';
  let value: AttrValue = null;
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WIRE.len) key = r.string();
    else if (field === 2 && wire === WIRE.len) value = anyValue(r.message(), 1, budget);
    else r.skip(wire);
  }
  if (key !== '') into.set(key, value);
}

function anyValue(r: Reader, depth: number, budget: DecodeBudget): AttrValue {
  let value: AttrValue = null;
  // A oneof: the last member on the wire wins.
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WIRE.len) value = r.string();
    else if (field === 2 && wire === WIRE.varint) value = r.bool();
    else if (field === 3 && wire === WIRE.varint) value = r.int64();
    else if (field === 4 && wire === WIRE.fixed64) value = r.double();
    else if (field === 5 && wire === WIRE.len && depth < MAX_VALUE_DEPTH)
      value = arrayValue(r.message(), depth + 1, budget);
    else {
      // kvlist (6), bytes (7), a string-table index (8), an array too deep: read past, kept as null.
      if (field >= 5 && field <= 8) value = null;
      r.skip(wire);
    }
  }
  return value;
}

function arrayValue(r: Reader, depth: number, budget: DecodeBudget): AttrValue[] {
  const values: AttrValue[] = [];
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WIRE.len) {
      budget.spend('values');
      values.push(anyValue(r.message(), depth, budget));
    } else r.skip(wire);
  }
  return values;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function hex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += HEX[byte];
  return text;
}
