import { type DecodeBudget, OverBudget, spendJsonShape } from './budget.ts';
import {
  type Attributes,
  type AttrValue,
  checkSpan,
  type DecodeResult,
  type ResourceSpans,
  type ScopeSpans,
  type SpanEntry,
  type SpanEvent,
} from './model.ts';

/**
 * `ExportTraceServiceRequest` in OTLP's JSON encoding (the proto3 JSON mapping with OTLP's deviations: ids as hex,
 * enums as integers, lowerCamelCase keys, 64-bit integers as strings or numbers; unknown keys ignored). Like the
 * protobuf decoder, a span that cannot be one is that span's defect, and a body whose structure around the spans is
 * wrong fails whole. A member of a span with the wrong type reads as absent, as a dropped detail, not a lost span.
 * The body's objects and arrays are counted before JSON.parse builds them, and the parts the mapping reads are spent
 * from the budget as they are read (budget.ts), so a body over it costs one pass over its bytes.
 */

type Json = Record<string, unknown>;

/** As in decode-proto.ts: deeper array values are kept as null. */
const MAX_VALUE_DEPTH = 8;
const MAX_U64 = 2n ** 64n - 1n;
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

class BadBody extends Error {}

export function decodeJsonTraces(body: Uint8Array, budget: DecodeBudget): DecodeResult {
  let root: unknown;
  try {
    spendJsonShape(body, budget);
    root = JSON.parse(fatalUtf8.decode(body));
  } catch (error) {
    if (error instanceof OverBudget) return { ok: false, over: error, reason: error.message };
    return { ok: false, over: null, reason: `not UTF-8 JSON (${(error as Error).message})` };
  }
  try {
    if (!isObject(root)) throw new BadBody('the body is not a JSON object');
    const listed = list(root.resourceSpans, 'resourceSpans');
    budget.spend('resources', listed.length);
    return { ok: true, resources: listed.map((rs, i) => resourceSpans(rs, i, budget)) };
  } catch (error) {
    if (error instanceof OverBudget) return { ok: false, over: error, reason: error.message };
    if (!(error instanceof BadBody)) throw error;
    return { ok: false, over: null, reason: error.message };
  }
}

function resourceSpans(value: unknown, index: number, budget: DecodeBudget): ResourceSpans {
  const where = `resourceSpans[${index}]`;
  if (!isObject(value)) throw new BadBody(`${where} is not an object`);
  const resource = isObject(value.resource) ? attributes(value.resource.attributes, budget) : new Map();
  const listed = list(value.scopeSpans, `${where}.scopeSpans`);
  budget.spend('scopes', listed.length);
  const scopes = listed.map((ss, i): ScopeSpans => {
    if (!isObject(ss)) throw new BadBody(`${where}.scopeSpans[${i}] is not an object`);
    const scope = isObject(ss.scope) && typeof ss.scope.name === 'string' ? ss.scope.name : '';
    const spans = list(ss.spans, `${where}.scopeSpans[${i}].spans`);
    budget.spend('spans', spans.length);
    return { scope, spans: spans.map((s) => spanEntry(s, budget)) };
  });
  return { resource, scopes };
}

/** A repeated field: absent (or null) is empty; anything else but an array is a body we cannot trust. */
function list(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new BadBody(`${where} is not an array`);
  return value;
}

function spanEntry(value: unknown, budget: DecodeBudget): SpanEntry {
  if (!isObject(value)) return { ok: false, reason: 'the span is not a JSON object' };
  const status = isObject(value.status) ? value.status : {};
  return checkSpan({
    traceId: id(value.traceId),
    spanId: id(value.spanId),
    parentSpanId: id(value.parentSpanId),
    name: typeof value.name === 'string' ? value.name : '',
    kind: integer(value.kind) ?? 0,
    flags: integer(value.flags) ?? 0,
    startNs: nanos(value.startTimeUnixNano),
    endNs: nanos(value.endTimeUnixNano),
    attributes: attributes(value.attributes, budget),
    events: spanEvents(value.events, budget),
    status: {
      code: integer(status.code) ?? 0,
      message: typeof status.message === 'string' ? status.message : '',
    },
  });
}

function spanEvents(value: unknown, budget: DecodeBudget): SpanEvent[] {
  if (!Array.isArray(value)) return [];
  budget.spend('events', value.length);
  return value.filter(isObject).map((event) => ({
    name: typeof event.name === 'string' ? event.name : '',
    attributes: attributes(event.attributes, budget),
  }));
}

function attributes(value: unknown, budget: DecodeBudget): Attributes {
  const map = new Map<string, AttrValue>();
  if (!Array.isArray(value)) return map;
  budget.spend('attributes', value.length);
  for (const item of value) {
    if (isObject(item) && typeof item.key === 'string' && item.key !== '') {
      map.set(item.key, anyValue(item.value, 1, budget));
    }
  }
  return map;
}

function anyValue(value: unknown, depth: number, budget: DecodeBudget): AttrValue {
  if (!isObject(value)) return null;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.intValue !== undefined) return int64(value.intValue);
  if (value.doubleValue !== undefined) return double(value.doubleValue);
  if (isObject(value.arrayValue) && depth < MAX_VALUE_DEPTH) {
    const values = Array.isArray(value.arrayValue.values) ? value.arrayValue.values : [];
    budget.spend('values', values.length);
    return values.map((item) => anyValue(item, depth + 1, budget));
  }
  // kvlistValue, bytesValue, an array too deep: see AttrValue.
  return null;
}

/** Hex, case-insensitive on the way in; checkSpan decides whether it is an id. */
function id(value: unknown): string {
  return typeof value === 'string' ? value.toLowerCase() : '';
}

/** A fixed64 of nanoseconds: a decimal string (the mapping's own form) or a number; 0n when it is neither. */
function nanos(value: unknown): bigint {
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) {
    const ns = BigInt(value);
    return ns <= MAX_U64 ? ns : 0n;
  }
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 2 ** 64 ? BigInt(value) : 0n;
}

function int64(value: unknown): number | null {
  if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) return Number(value);
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}

function double(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const number = Number(value);
  return Number.isNaN(number) && value !== 'NaN' ? null : number;
}

function integer(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
