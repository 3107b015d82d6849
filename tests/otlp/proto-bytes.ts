/** Hand-encoded protobuf fields, for bodies no exporter would write (and small ones it would). */

export function varint(value: number | bigint): number[] {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return bytes;
}

const tag = (field: number, wire: number) => varint((field << 3) | wire);

export const pb = {
  varint: (field: number, value: number | bigint) => [...tag(field, 0), ...varint(value)],
  fixed64: (field: number, value: bigint) => {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setBigUint64(0, value, true);
    return [...tag(field, 1), ...bytes];
  },
  double: (field: number, value: number) => {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value, true);
    return [...tag(field, 1), ...bytes];
  },
  fixed32: (field: number, value: number) => {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, value, true);
    return [...tag(field, 5), ...bytes];
  },
  len: (field: number, payload: readonly number[] | string) => {
    const bytes = typeof payload === 'string' ? [...new TextEncoder().encode(payload)] : payload;
    return [...tag(field, 2), ...varint(bytes.length), ...bytes];
  },
};

function hexBytes(hex: string): number[] {
  return (hex.match(/../g) ?? []).map((pair) => Number.parseInt(pair, 16));
}

/** A KeyValue (common.proto) with a string value. */
export function stringAttr(key: string, value: string): number[] {
  return pb.len(9, [...pb.len(1, key), ...pb.len(2, pb.len(1, value))]);
}

/** A Span (trace.proto) with ids, a start and `extra` fields, in an ExportTraceServiceRequest of one scope. */
export function request(spans: readonly number[][], scope = 'test-scope'): Uint8Array {
  const scopeSpans = [...pb.len(1, pb.len(1, scope)), ...spans.flatMap((span) => pb.len(2, span))];
  return Uint8Array.from(pb.len(1, pb.len(2, scopeSpans)));
}

export function span(spanId: string, extra: readonly number[] = []): number[] {
  return [
    ...pb.len(1, hexBytes('0af7651916cd43dd8448eb211c80319c')),
    ...pb.len(2, hexBytes(spanId)),
    ...pb.len(5, 'GET'),
    ...pb.varint(6, 3),
    ...pb.fixed64(7, 1_796_194_494_697_000_000n),
    ...pb.fixed64(8, 1_796_194_494_698_000_000n),
    ...extra,
  ];
}
