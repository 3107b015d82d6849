import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/**
 * OTLP/HTTP trace bodies of about `spans` spans, made from the recorded exports in tests/fixtures/otlp: the spans of
 * one recorded export, copied with fresh trace and span ids (parentage kept) until the body holds as many as a
 * BatchSpanProcessor exports at once (512 by default). One resource, one scope list, as an exporter writes them.
 * The JSON and protobuf bodies hold the same spans.
 */

export type Recorded = 'client' | 'server';

export interface OtlpBodies {
  json: Uint8Array;
  protobuf: Uint8Array;
  gzip: Uint8Array;
  spans: number;
  copies: number;
}

const FIXTURES = new URL('../tests/fixtures/otlp/', import.meta.url);

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  [key: string]: unknown;
}
interface JsonBody {
  resourceSpans: { scopeSpans: { spans: JsonSpan[] }[] }[];
}

export function otlpBodies(recorded: Recorded, spans: number): OtlpBodies {
  const json = JSON.parse(readFileSync(new URL(`${recorded}.otlp-json.json`, FIXTURES), 'utf8')) as JsonBody;
  const [resource, ...others] = json.resourceSpans;
  if (resource === undefined || others.length > 0) throw new Error(`${recorded}: expected one resourceSpans`);
  const perCopy = resource.scopeSpans.reduce((n, s) => n + s.spans.length, 0);
  const copies = Math.max(1, Math.round(spans / perCopy));
  const jsonBody = {
    resourceSpans: [
      {
        ...resource,
        scopeSpans: resource.scopeSpans.map((scope) => ({
          ...scope,
          spans: Array.from({ length: copies }, (_, copy) => scope.spans.map((s) => copyJsonSpan(s, copy))).flat(),
        })),
      },
    ],
  };
  const protobuf = copyProto(new Uint8Array(readFileSync(new URL(`${recorded}.otlp-proto.pb`, FIXTURES))), copies);
  return {
    json: new TextEncoder().encode(JSON.stringify(jsonBody)),
    protobuf,
    gzip: new Uint8Array(gzipSync(protobuf)),
    spans: perCopy * copies,
    copies,
  };
}

/**
 * Copy `copy` of an id: its first four bytes mixed with the copy's number (copy 0 is the recorded id). The same
 * recorded id gives the same id within a copy, so parents stay parents.
 */
function copyIdBytes(id: Uint8Array, copy: number): Uint8Array {
  const out = Uint8Array.from(id);
  if (copy === 0 || out.length < 4) return out;
  const mix = Math.imul(copy, 0x9e3779b1) >>> 0;
  for (let i = 0; i < 4; i++) out[i] = (out[i] as number) ^ ((mix >>> (8 * i)) & 255);
  return out;
}

function copyHexId(hex: string, copy: number): string {
  if (hex === '' || copy === 0) return hex;
  const bytes = Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
  return Buffer.from(copyIdBytes(bytes, copy)).toString('hex');
}

function copyJsonSpan(span: JsonSpan, copy: number): JsonSpan {
  return {
    ...span,
    traceId: copyHexId(span.traceId, copy),
    spanId: copyHexId(span.spanId, copy),
    ...(span.parentSpanId !== undefined && { parentSpanId: copyHexId(span.parentSpanId, copy) }),
  };
}

// The protobuf side: the recorded bytes re-framed, each span's own bytes kept but for its ids (same lengths).
// Field numbers from opentelemetry-proto: ExportTraceServiceRequest.resource_spans = 1, ResourceSpans.scope_spans =
// 2, ScopeSpans.spans = 2, Span.trace_id = 1, span_id = 2, parent_span_id = 4.

interface Field {
  field: number;
  wire: number;
  /** The whole field, tag included. */
  bytes: Uint8Array;
  /** A length-delimited field's payload. */
  payload?: Uint8Array;
}

function copyProto(body: Uint8Array, copies: number): Uint8Array {
  const fields = readFields(body);
  if (fields.filter((f) => f.field === 1).length !== 1) throw new Error('expected one resource_spans');
  return concat(
    fields.map((f) => {
      if (f.field !== 1 || f.payload === undefined) return f.bytes;
      const resourceFields = readFields(f.payload).map((rf) =>
        rf.field === 2 && rf.payload !== undefined ? lenField(2, copyScopeSpans(rf.payload, copies)) : rf.bytes,
      );
      return lenField(1, concat(resourceFields));
    }),
  );
}

function copyScopeSpans(scopeSpans: Uint8Array, copies: number): Uint8Array {
  const fields = readFields(scopeSpans);
  const spans = fields.filter((f) => f.field === 2 && f.payload !== undefined);
  const rest = fields.filter((f) => !spans.includes(f)).map((f) => f.bytes);
  const copied: Uint8Array[] = [];
  for (let copy = 0; copy < copies; copy++) {
    for (const span of spans) copied.push(lenField(2, copySpan(span.payload as Uint8Array, copy)));
  }
  // The scope (1) first, then the spans, then the schema URL (3), as the exporter orders them.
  const [scope, ...after] = rest;
  return concat([...(scope === undefined ? [] : [scope]), ...copied, ...after]);
}

function copySpan(span: Uint8Array, copy: number): Uint8Array {
  return concat(
    readFields(span).map((f) =>
      (f.field === 1 || f.field === 2 || f.field === 4) && f.payload !== undefined && f.payload.length > 0
        ? lenField(f.field, copyIdBytes(f.payload, copy))
        : f.bytes,
    ),
  );
}

function readFields(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('truncated varint');
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  while (at < bytes.length) {
    const start = at;
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    let payload: Uint8Array | undefined;
    if (wire === 0) varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = varint();
      payload = bytes.subarray(at, at + length);
      at += length;
    } else throw new Error(`wire type ${wire} in a recorded body`);
    fields.push({ field, wire, bytes: bytes.subarray(start, at), ...(payload !== undefined && { payload }) });
  }
  return fields;
}

function lenField(field: number, payload: Uint8Array): Uint8Array {
  return concat([Uint8Array.from(varintBytes(field * 8 + 2)), Uint8Array.from(varintBytes(payload.length)), payload]);
}

function varintBytes(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}
