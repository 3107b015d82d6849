/**
 * A bounds-checked reader of the protobuf wire format (https://protobuf.dev/programming-guides/encoding/): varint,
 * fixed64, fixed32 and length-delimited fields, nothing more, because that is all OTLP uses. Every read either
 * advances past bytes that exist or throws ProtoError, so a truncated or hostile body ends in a clean error and no
 * loop over it can stall. Hand-written rather than a dependency: it runs on the ingest hot path, and a generic
 * decoder would build every field the mapping never reads.
 */

export const WIRE = { varint: 0, fixed64: 1, len: 2, fixed32: 5 } as const;

export class ProtoError extends Error {}

const utf8 = new TextDecoder('utf-8');

export class ProtoReader {
  private pos: number;
  // The last varint read, as two unsigned 32-bit halves: no allocation per number.
  private lo = 0;
  private hi = 0;

  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /** The next field's number and wire type. */
  tag(): { field: number; wire: number } {
    const tag = this.uint32();
    const field = tag >>> 3;
    if (field === 0) throw new ProtoError(`field number 0 at byte ${this.pos}`);
    return { field, wire: tag & 7 };
  }

  /** A varint's low 32 bits, unsigned: uint32 fields, enums as the sender meant them, tags. */
  uint32(): number {
    this.varint();
    return this.lo;
  }

  /** An int64 varint as a number: exact up to 2^53, which no attribute the mapping reads goes past. */
  int64(): number {
    this.varint();
    if (this.hi & 0x80000000) return -((~this.hi >>> 0) * 2 ** 32 + (~this.lo >>> 0) + 1);
    return this.hi * 2 ** 32 + this.lo;
  }

  bool(): boolean {
    this.varint();
    return (this.lo | this.hi) !== 0;
  }

  fixed32(): number {
    const at = this.take(4);
    const b = this.buf;
    return ((b[at] ?? 0) | ((b[at + 1] ?? 0) << 8) | ((b[at + 2] ?? 0) << 16) | ((b[at + 3] ?? 0) << 24)) >>> 0;
  }

  /** Exact: nanosecond timestamps pass 2^53. */
  fixed64(): bigint {
    const lo = this.fixed32();
    const hi = this.fixed32();
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  double(): number {
    const at = this.take(8);
    return new DataView(this.buf.buffer, this.buf.byteOffset + at, 8).getFloat64(0, true);
  }

  bytes(): Uint8Array {
    const length = this.length();
    const at = this.take(length);
    return this.buf.subarray(at, at + length);
  }

  /** Text as proto3 strings are: UTF-8; a malformed sequence becomes U+FFFD rather than costing the span. */
  string(): string {
    return utf8.decode(this.bytes());
  }

  /** A reader over the embedded message that comes next; this one moves past it. */
  message(): ProtoReader {
    const length = this.length();
    const at = this.take(length);
    return new ProtoReader(this.buf, at, at + length);
  }

  /** Passes over a field this reader does not want, whatever its number: unknown fields are legal. */
  skip(wire: number): void {
    if (wire === WIRE.varint) this.varint();
    else if (wire === WIRE.fixed64) this.take(8);
    else if (wire === WIRE.len) this.take(this.length());
    else if (wire === WIRE.fixed32) this.take(4);
    // Groups (3, 4) were never part of proto3; 6 and 7 were never assigned.
    else throw new ProtoError(`wire type ${wire} at byte ${this.pos}`);
  }

  private length(): number {
    this.varint();
    if (this.hi !== 0) throw new ProtoError(`a length past 4 GiB at byte ${this.pos}`);
    return this.lo;
  }

  /** Moves past `count` bytes that must exist; answers where they start. */
  private take(count: number): number {
    const at = this.pos;
    if (count > this.end - at) throw new ProtoError(`truncated: ${count} bytes wanted at byte ${at}`);
    this.pos = at + count;
    return at;
  }

  private varint(): void {
    let lo = 0;
    let hi = 0;
    for (let index = 0; index < 10; index++) {
      if (this.pos >= this.end) throw new ProtoError(`truncated varint at byte ${this.pos}`);
      const byte = this.buf[this.pos++] ?? 0;
      const bits = byte & 0x7f;
      // Byte n holds bits 7n..7n+6: the first four fill `lo`, the fifth straddles both halves.
      if (index < 4) lo |= bits << (7 * index);
      else if (index === 4) {
        lo |= bits << 28;
        hi = bits >>> 4;
      } else hi |= bits << (7 * index - 32);
      if ((byte & 0x80) === 0) {
        this.lo = lo >>> 0;
        this.hi = hi >>> 0;
        return;
      }
    }
    throw new ProtoError(`a varint longer than 10 bytes at byte ${this.pos}`);
  }
}
