import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import {
  DecodeBudget,
  decodeTraces,
  type OtlpEncoding,
  type TracesOptions,
  tracesToEvents,
} from '../../shared/otlp/index.ts';
import type { ResourceSpans } from '../../shared/otlp/model.ts';

/** The recorded bodies in tests/fixtures/otlp (see its README), read as sent; never written. */
export type Process = 'client' | 'server';
export type Body = 'proto' | 'json' | 'gzip';

const FILES: Record<Body, { suffix: string; encoding: OtlpEncoding }> = {
  proto: { suffix: 'otlp-proto.pb', encoding: 'protobuf' },
  json: { suffix: 'otlp-json.json', encoding: 'json' },
  gzip: { suffix: 'otlp-proto-gzip.pb.gz', encoding: 'protobuf' },
};

export function fixtureBytes(process: Process, body: Body): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`../fixtures/otlp/${process}.${FILES[body].suffix}`, import.meta.url)));
}

interface FixtureJson {
  resourceSpans: { resource: { attributes: unknown[] }; scopeSpans: { spans: Record<string, unknown>[] }[] }[];
}

/** A fresh copy of a recorded JSON body, to mutate in a test. */
export function fixtureJson(process: Process): FixtureJson {
  return JSON.parse(new TextDecoder().decode(fixtureBytes(process, 'json')));
}

export function decodeFixture(process: Process, body: Body): ResourceSpans[] {
  const bytes = body === 'gzip' ? new Uint8Array(gunzipSync(fixtureBytes(process, body))) : fixtureBytes(process, body);
  return decodeOk(bytes, FILES[body].encoding);
}

export function decodeOk(bytes: Uint8Array, encoding: OtlpEncoding): ResourceSpans[] {
  const decoded = decodeTraces(bytes, encoding, new DecodeBudget());
  if (!decoded.ok) throw new Error(`does not decode: ${decoded.reason}`);
  return decoded.resources;
}

export function fixtureEvents(process: Process, body: Body = 'json', options: TracesOptions = {}) {
  return tracesToEvents(decodeFixture(process, body), options);
}

/** The events of a mapping, by the x-request-id their HTTP span carried (`req-0001` ...). */
export function byRequestId(items: readonly { value: Record<string, unknown> }[]) {
  const found = new Map<string, Record<string, unknown>>();
  for (const { value } of items) {
    const id = (value.http as { requestId?: string } | undefined)?.requestId;
    if (id !== undefined) found.set(id, value);
  }
  return found;
}

export function jsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

type AttrInput = string | number | boolean | string[];

export interface SpanInput {
  traceId?: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startMs?: number;
  durationMs?: number;
  attributes?: Record<string, AttrInput>;
  exception?: { type: string; message: string };
  status?: { code: number; message?: string };
  /** 257 by default (sampled, parent known to be local); 769 marks a remote parent. */
  flags?: number;
}

export const TRACE = '0af7651916cd43dd8448eb211c80319c';
export const T0 = Date.parse('2026-11-02T10:00:00Z');

/** An OTLP JSON body of one process and one scope, as exporter-trace-otlp-http writes it. */
export function otlpJson(service: string, scope: string, spans: readonly SpanInput[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes({ 'service.name': service }) },
        scopeSpans: [{ scope: { name: scope, version: '0.0.0' }, spans: spans.map(span) }],
      },
    ],
  };
}

function span(input: SpanInput) {
  const start = BigInt(T0 + (input.startMs ?? 0)) * 1_000_000n;
  return {
    traceId: input.traceId ?? TRACE,
    spanId: input.spanId,
    ...(input.parentSpanId !== undefined && { parentSpanId: input.parentSpanId }),
    name: input.name,
    kind: input.kind,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + BigInt(Math.round((input.durationMs ?? 10) * 1e6))),
    attributes: attributes(input.attributes ?? {}),
    events:
      input.exception === undefined
        ? []
        : [
            {
              name: 'exception',
              timeUnixNano: String(start),
              attributes: attributes({
                'exception.type': input.exception.type,
                'exception.message': input.exception.message,
              }),
            },
          ],
    status: input.status ?? { code: 0 },
    flags: input.flags ?? 257,
  };
}

function attributes(values: Record<string, AttrInput>) {
  return Object.entries(values).map(([key, value]) => ({ key, value: anyValue(value) }));
}

function anyValue(value: AttrInput): Record<string, unknown> {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((v) => ({ stringValue: v })) } };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
}
