import { validateEvent } from '../../shared/event.ts';
import { DecodeBudget, decodeTraces, type OtlpEncoding, tracesToEvents } from '../../shared/otlp/index.ts';
import { fuzzLine, type Random } from '../fuzz/mutate.ts';
import { fixtureBytes } from './support.ts';

/**
 * Seeded mutations of the recorded OTLP bodies, for the fuzz test (tests/fuzz/otlp.test.ts) and its long run
 * (`npm run fuzz`): the same seed gives the same bodies.
 */

const PROTO = [fixtureBytes('client', 'proto'), fixtureBytes('server', 'proto')];
const JSON_TEXT = ['client', 'server'].map((p) => new TextDecoder().decode(fixtureBytes(p as 'client', 'json')));

/** A byte-level mutation: what a cut connection, a flipped bit or a hostile sender makes of a protobuf body. */
function mutateBytes(body: Uint8Array, r: Random): Uint8Array {
  const at = r.int(body.length + 1);
  switch (r.int(6)) {
    case 0:
      return body.subarray(0, at);
    case 1:
      return withByte(body, at, () => r.int(256));
    case 2:
      return withByte(body, at, (byte) => byte ^ (1 << r.int(8)));
    case 3:
      // A length varint made huge, or a run of continuation bytes.
      return concat(
        body.subarray(0, at),
        Uint8Array.from({ length: 1 + r.int(12) }, () => 0x80 | r.int(128)),
        body.subarray(at),
      );
    case 4: {
      const from = r.int(body.length);
      return concat(body.subarray(0, at), body.subarray(from, from + r.int(200)), body.subarray(at));
    }
    default:
      return concat(body.subarray(0, at), body.subarray(Math.min(body.length, at + 1 + r.int(16))));
  }
}

function withByte(body: Uint8Array, at: number, change: (byte: number) => number): Uint8Array {
  const copy = body.slice();
  const index = Math.min(at, copy.length - 1);
  copy[index] = change(copy[index] ?? 0);
  return copy;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * JSON spans mutated as the native lines are (tests/fuzz/mutate.ts), one to three of them, so that most bodies
 * reach the span mapping; now and then the whole body instead, which mostly tests the decoder's refusals.
 */
function fuzzJson(r: Random): string {
  if (r.next() < 0.2) return fuzzLine(r.pick(JSON_TEXT), r);
  const body = JSON.parse(r.pick(JSON_TEXT)) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
  const scopes = body.resourceSpans.flatMap((resource) => resource.scopeSpans);
  for (let i = 1 + r.int(3); i > 0; i--) {
    const { spans } = r.pick(scopes);
    const at = r.int(spans.length);
    const text = fuzzLine(JSON.stringify(spans[at]), r);
    try {
      spans[at] = JSON.parse(text);
    } catch {
      // Mutated past JSON: the span becomes its text, a string where an object belongs.
      spans[at] = text;
    }
  }
  return JSON.stringify(body);
}

/** One fuzzed body: a protobuf body mutated byte by byte, or a JSON body mutated span by span. */
export function fuzzOtlpBody(r: Random): { body: Uint8Array; encoding: OtlpEncoding } {
  if (r.next() < 0.5) {
    let body = r.pick(PROTO);
    for (let i = 1 + r.int(3); i > 0; i--) body = mutateBytes(body, r);
    return { body, encoding: 'protobuf' };
  }
  return { body: new TextEncoder().encode(fuzzJson(r)), encoding: 'json' };
}

/** Decodes and maps one body as the route does; answers how many events it gave, and throws if one is no event. */
export function decodeAndMap(body: Uint8Array, encoding: OtlpEncoding): number {
  const decoded = decodeTraces(body, encoding, new DecodeBudget());
  if (!decoded.ok) {
    if (decoded.reason.length === 0) throw new Error('a refusal without a reason');
    return 0;
  }
  const { items } = tracesToEvents(decoded.resources, {});
  for (const item of items) {
    const parsed = validateEvent(item.value);
    // validateEvent may refuse a mutated name or date; it must never be handed something other than an object.
    if (!parsed.ok && parsed.error.code === 'not_an_object') throw new Error('an event that is no object');
  }
  return items.length;
}
