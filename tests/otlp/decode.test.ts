import { describe, expect, it } from 'vitest';
import { DecodeBudget, decodeTraces } from '../../shared/otlp/index.ts';

const spans = (limit: number) => new DecodeBudget({ spans: limit });

import type { ResourceSpans, Span, SpanEntry } from '../../shared/otlp/model.ts';
import { pb, request, span, stringAttr, varint } from './proto-bytes.ts';
import { decodeFixture, decodeOk, fixtureBytes, fixtureJson, jsonBytes, type Process } from './support.ts';

function spansOf(resources: readonly ResourceSpans[]): SpanEntry[] {
  return resources.flatMap((r) => r.scopes.flatMap((s) => s.spans));
}

function onlySpan(resources: readonly ResourceSpans[]): Span {
  const [entry] = spansOf(resources);
  if (entry?.ok !== true) throw new Error(`no span: ${JSON.stringify(entry)}`);
  return entry.span;
}

describe('the recorded bodies', () => {
  it.each<Process>(['client', 'server'])('of the %s decode to the same spans from protobuf, gzip and JSON', (p) => {
    const json = decodeFixture(p, 'json');
    expect(decodeFixture(p, 'proto')).toEqual(json);
    expect(decodeFixture(p, 'gzip')).toEqual(json);
  });

  it.each([
    ['client', 22, { '@opentelemetry/instrumentation-undici': 13, '@traceloop/instrumentation-mcp': 9 }],
    ['server', 14, { '@opentelemetry/instrumentation-http': 13, '@traceloop/instrumentation-mcp': 1 }],
  ] as const)('of the %s hold the spans manifest.json counts', (p, total, byScope) => {
    const [resource, ...others] = decodeFixture(p, 'proto');
    expect(others).toEqual([]);
    expect(resource?.resource.get('service.name')).toBe(`fixture-mcp-${p}`);
    const counts = Object.fromEntries(resource?.scopes.map((s) => [s.scope, s.spans.length]) ?? []);
    expect(counts).toEqual(byScope);
    expect(spansOf(decodeFixture(p, 'proto')).filter((e) => e.ok)).toHaveLength(total);
  });

  it('reads what the fixture README says the spans contain', () => {
    const spans = spansOf(decodeFixture('client', 'proto')).flatMap((e) => (e.ok ? [e.span] : []));
    const read = spans.find((s) => s.name === 'resources/read.mcp');
    expect(read?.status).toEqual({ code: 2, message: 'MCP error -32602: MCP error -32602: Unknown record: r-404' });
    expect(read?.events[0]?.attributes.get('exception.type')).toBe('-32602');
    const post = spans.find((s) => s.name === 'POST');
    expect(post?.attributes.get('server.port')).toBe(45047);
    expect(post?.attributes.get('http.request.header.x-request-id')).toEqual(['req-0001']);
    expect(post?.flags).toBe(257);
    expect(post?.startNs).toBe(1_796_194_494_697_000_000n);
    expect(post?.endNs).toBe(1_796_194_494_751_953_753n);
    const server = spansOf(decodeFixture('server', 'proto')).flatMap((e) => (e.ok ? [e.span] : []));
    expect(server.find((s) => s.kind === 2 && s.name === 'POST')?.flags).toBe(769);
    expect(spans.find((s) => s.name === 'mcp.client.session')?.parentSpanId).toBe('');
  });
});

describe('the JSON encoding', () => {
  const body = (spans: unknown[]) => jsonBytes({ resourceSpans: [{ scopeSpans: [{ scope: { name: 's' }, spans }] }] });
  const good = fixtureJson('client').resourceSpans[0]?.scopeSpans[0]?.spans[0] ?? {};

  it('takes intValue as a string or a number, ids in either case, and ignores unknown keys', () => {
    const attributes = [
      { key: 'a', value: { intValue: '-42' } },
      { key: 'b', value: { intValue: 7 } },
      { key: 'c', value: { doubleValue: 1.5 } },
      { key: 'd', value: { boolValue: true } },
      { key: 'e', value: { kvlistValue: { values: [] } } },
      { key: 'f', value: { arrayValue: { values: [{ stringValue: 'x' }, { intValue: '1' }] } } },
      { key: '__proto__', value: { stringValue: 'kept as a key' } },
    ];
    const upper = { ...good, traceId: String(good.traceId).toUpperCase(), attributes, someFutureField: 1 };
    const span = onlySpan(decodeOk(body([upper]), 'json'));
    expect(span.traceId).toBe(good.traceId);
    expect(span.attributes).toEqual(
      new Map<string, unknown>([
        ['a', -42],
        ['b', 7],
        ['c', 1.5],
        ['d', true],
        ['e', null],
        ['f', ['x', 1]],
        ['__proto__', 'kept as a key'],
      ]),
    );
  });

  it('makes a span without a start, with a bad id or that is no object a defect of that span alone', () => {
    const { startTimeUnixNano: _, ...noStart } = good;
    const spans = spansOf(decodeOk(body([noStart, { ...good, spanId: 'xyz' }, 42, good]), 'json'));
    expect(spans.map((e) => (e.ok ? 'ok' : e.reason))).toEqual([
      'the span has no start time',
      'the span id is not 8 bytes, or is all zero',
      'the span is not a JSON object',
      'ok',
    ]);
  });

  it('reads an all-zero parent as a root, and a body without resourceSpans as empty', () => {
    expect(onlySpan(decodeOk(body([{ ...good, parentSpanId: '0'.repeat(16) }]), 'json')).parentSpanId).toBe('');
    expect(decodeOk(jsonBytes({}), 'json')).toEqual([]);
  });

  it.each([
    ['not JSON', new TextEncoder().encode('{"resourceSpans": [')],
    ['not UTF-8', Uint8Array.from([0x7b, 0xff, 0x7d])],
    ['no object', jsonBytes([1])],
    ['resourceSpans no array', jsonBytes({ resourceSpans: 5 })],
    ['spans no array', jsonBytes({ resourceSpans: [{ scopeSpans: [{ spans: {} }] }] })],
  ])('refuses a body that is %s', (_, bytes) => {
    expect(decodeTraces(bytes, 'json', spans(10))).toMatchObject({ ok: false, over: null });
  });

  it('refuses more spans than a batch may hold', () => {
    expect(decodeTraces(body([good, good, good]), 'json', spans(2))).toMatchObject({
      ok: false,
      over: { part: 'spans', limit: 2 },
    });
  });
});

describe('the protobuf reader', () => {
  const ID = '00f067aa0ba902b7';

  it('reads every AnyValue kind, a negative int64 included, and skips fields it does not know', () => {
    const value = (...fields: number[][]) => fields.flat();
    const attr = (key: string, any: number[]) => pb.len(9, [...pb.len(1, key), ...pb.len(2, any)]);
    const bytes = request([
      span(ID, [
        ...attr('neg', pb.varint(3, -5n)),
        ...attr('big', pb.varint(3, 2 ** 40)),
        ...attr('dbl', pb.double(4, 0.25)),
        ...attr('yes', pb.varint(2, 1)),
        ...attr('arr', pb.len(5, value(pb.len(1, pb.len(1, 'a')), pb.len(1, pb.varint(3, 2))))),
        ...attr('kv', pb.len(6, [])),
        ...pb.varint(99, 1),
        ...pb.len(100, 'future'),
        ...pb.fixed32(16, 769),
      ]),
    ]);
    const decoded = onlySpan(decodeOk(bytes, 'protobuf'));
    expect(Object.fromEntries(decoded.attributes)).toEqual({
      neg: -5,
      big: 2 ** 40,
      dbl: 0.25,
      yes: true,
      arr: ['a', 2],
      kv: null,
    });
    expect(decoded.flags).toBe(769);
  });

  it('keeps values nested past its depth as null, without recursing into them', () => {
    // 100,000 arrays deep: a reader that recursed into them would overflow its stack.
    const depth = 100_000;
    const nested = deepArray(depth);
    const bytes = request([span(ID, pb.len(9, [...pb.len(1, 'deep'), ...pb.len(2, nested)]))]);
    expect(onlySpan(decodeOk(bytes, 'protobuf')).attributes.get('deep')).toEqual([[[[[[[null]]]]]]]);
  });

  it('makes a span whose own bytes are broken a defect of that span, and reads the next', () => {
    const broken = span('1111111111111111').slice(0, -3);
    const bytes = request([broken, span(ID)]);
    const entries = spansOf(decodeOk(bytes, 'protobuf'));
    expect(entries[0]).toEqual({ ok: false, reason: expect.stringContaining('the span does not decode') });
    expect(entries[1]?.ok).toBe(true);
  });

  it('reads a known field with the wrong wire type as unknown: here the span has no trace id', () => {
    const bytes = request([[...pb.varint(1, 5), ...span(ID).slice(18)]]);
    expect(spansOf(decodeOk(bytes, 'protobuf'))[0]).toMatchObject({
      ok: false,
      reason: expect.stringContaining('trace id'),
    });
  });

  it.each([
    ['text', new TextEncoder().encode('this is not protobuf')],
    ['a varint longer than 10 bytes', Uint8Array.from([0x08, ...Array(11).fill(0xff), 0x01])],
    ['a length past the end', Uint8Array.from([0x0a, 0x7f, 0x00])],
    ['a group', Uint8Array.from([0x0b, 0x0c])],
    ['field number 0', Uint8Array.from([0x02, 0x00])],
    ['a cut varint', Uint8Array.from([0x08, 0x80])],
  ])('refuses %s without throwing', (_, bytes) => {
    expect(decodeTraces(bytes, 'protobuf', spans(10))).toMatchObject({ ok: false, over: null });
  });

  it('decodes an empty body as an empty request, which OTLP answers with success', () => {
    expect(decodeOk(new Uint8Array(0), 'protobuf')).toEqual([]);
  });

  it('never throws on a recorded body cut at any byte', () => {
    const whole = fixtureBytes('server', 'proto');
    for (let at = 0; at < whole.length; at++) {
      const result = decodeTraces(whole.subarray(0, at), 'protobuf', spans(100));
      if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
    }
  });

  it('refuses more spans than a batch may hold', () => {
    expect(decodeTraces(request([span(ID), span(ID), span(ID)]), 'protobuf', spans(2))).toMatchObject({
      ok: false,
      over: { part: 'spans', limit: 2 },
    });
  });

  it('reads string attributes as UTF-8, a broken sequence as U+FFFD', () => {
    const bytes = request([
      span(ID, [...stringAttr('ok', 'é'), ...pb.len(9, [...pb.len(1, 'bad'), ...pb.len(2, [0x0a, 1, 0xff])])]),
    ]);
    expect(Object.fromEntries(onlySpan(decodeOk(bytes, 'protobuf')).attributes)).toEqual({ ok: 'é', bad: '\uFFFD' });
  });
});

/** AnyValue{array_value: ArrayValue{values: [AnyValue{...}]}} `depth` times, around a string; built in one pass. */
function deepArray(depth: number): number[] {
  // Sizes from the inside out, then bytes from the outside in: no quadratic copying.
  const leaf = pb.len(1, 'x');
  const sizes = [leaf.length];
  for (let i = 0; i < depth; i++) {
    const any = sizes[i] ?? 0;
    const array = 1 + varint(any).length + any;
    sizes.push(1 + varint(array).length + array);
  }
  const out: number[] = [];
  for (let i = depth; i > 0; i--) {
    const any = sizes[i - 1] ?? 0;
    const array = 1 + varint(any).length + any;
    out.push(0x2a, ...varint(array), 0x0a, ...varint(any));
  }
  out.push(...leaf);
  return out;
}
