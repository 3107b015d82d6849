import { OTLP_LIMITS } from '../../shared/otlp/index.ts';
import { ProtoReader, WIRE } from '../../shared/otlp/proto-reader.ts';
import type { Random } from '../fuzz/mutate.ts';
import { pb } from './proto-bytes.ts';
import { fixtureBytes, fixtureJson } from './support.ts';

/**
 * Seeded OTLP bodies of random container shapes (issue 39, item 1): how many resources, scopes, spans, attributes,
 * events and array members, how deeply arrays nest, empty and repeated and unknown members, and in JSON a member of
 * the wrong type where a container belongs; the spans themselves are the recorded ones. Where fuzz-bodies.ts mutates
 * bytes and values, these stress the structure, and now and then a count just under or just past a budget limit.
 */

type Bytes = Uint8Array;

/** The recorded protobuf spans and resources, as their own bytes. */
const REAL_SPANS: Bytes[] = [];
const REAL_RESOURCES: Bytes[] = [];
for (const process of ['client', 'server'] as const) {
  const request = new ProtoReader(fixtureBytes(process, 'proto'));
  while (!request.done()) {
    request.tag();
    const resource = request.message();
    while (!resource.done()) {
      const { field } = resource.tag();
      if (field === 1) REAL_RESOURCES.push(resource.bytes());
      else if (field !== 2) resource.skip(WIRE.len);
      else {
        const scope = resource.message();
        while (!scope.done()) {
          if (scope.tag().field === 2) REAL_SPANS.push(scope.bytes());
          else scope.skip(WIRE.len);
        }
      }
    }
  }
}

const JSON_SPANS = ['client', 'server'].flatMap(
  (p) => fixtureJson(p as 'client').resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)) as object[],
);

/** How many of a repeated member: mostly a few, sometimes none, rarely (given a limit) just under or past it. */
function count(r: Random, limit?: number): number {
  const roll = r.next();
  if (roll < 0.15) return 0;
  if (roll < 0.75) return 1 + r.int(3);
  if (roll < 0.97 || limit === undefined) return 4 + r.int(9);
  return limit + r.int(3) - 1;
}

function len(field: number, ...parts: readonly (Bytes | readonly number[])[]): Bytes {
  const payload = Buffer.concat(parts.map((p) => Uint8Array.from(p)));
  const head = pb.len(field, []);
  return Buffer.concat([Uint8Array.from(head.slice(0, -1)), Uint8Array.from(varintOf(payload.length)), payload]);
}

function varintOf(n: number): number[] {
  const bytes: number[] = [];
  let rest = n;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}

/** Noise a reader must pass over: an unknown field of each wire type, or an empty message where one belongs. */
function noise(r: Random, field: number): Bytes {
  switch (r.int(4)) {
    case 0:
      return Uint8Array.from(pb.varint(90 + r.int(10), r.int(1000)));
    case 1:
      return Uint8Array.from(pb.fixed32(90 + r.int(10), r.int(1000)));
    case 2:
      return len(90 + r.int(10), [1, 2, 3]);
    default:
      return len(field);
  }
}

/** An array value nested `depth` deep (AnyValue{array_value{values...}}): a leaf or two beside the deeper one. */
function nestedArray(r: Random, depth: number): Bytes {
  if (depth === 0) return Uint8Array.from(pb.len(1, 'leaf'));
  const leaves = Array.from({ length: r.int(3) }, () => len(1, pb.len(1, 'leaf')));
  return len(5, len(1, nestedArray(r, depth - 1)), ...leaves);
}

function protoSpan(r: Random): Bytes {
  const span = r.pick(REAL_SPANS);
  if (r.next() < 0.7) return span;
  const extra: Bytes[] = [];
  for (let i = count(r); i > 0; i--) extra.push(len(9, pb.len(1, `k${i}`), len(2, nestedArray(r, r.int(12)))));
  for (let i = count(r); i > 0; i--) extra.push(len(11, pb.len(2, 'event'), len(3, pb.len(1, 'e'))));
  if (r.next() < 0.2) extra.push(noise(r, 9));
  return Buffer.concat([span, ...extra]);
}

function protoBody(r: Random): Bytes {
  const resources: Bytes[] = [];
  const resourceCount = count(r, OTLP_LIMITS.resources);
  for (let i = 0; i < resourceCount; i++) {
    // Past the first few, resources are empty: a body near the limit stays small.
    if (i > 3) {
      resources.push(len(1));
      continue;
    }
    const fields: Bytes[] = [];
    if (r.next() < 0.7) fields.push(len(1, r.pick(REAL_RESOURCES)));
    const scopes = count(r);
    for (let s = 0; s < scopes; s++) {
      const members: Bytes[] = [];
      if (r.next() < 0.8) members.push(len(1, pb.len(1, `scope-${s}`)));
      for (let n = count(r); n > 0; n--) members.push(len(2, protoSpan(r)));
      if (r.next() < 0.2) members.push(noise(r, 2));
      fields.push(len(2, ...members));
    }
    if (r.next() < 0.2) fields.push(noise(r, 2));
    resources.push(len(1, ...fields));
  }
  if (r.next() < 0.1) resources.push(noise(r, 1));
  return Buffer.concat(resources);
}

/** A value where a container belongs: most often the right one, sometimes any other JSON type. */
function wrongOr(r: Random, right: () => unknown): unknown {
  if (r.next() > 0.08) return right();
  return r.pick<unknown>([null, 0, 'x', true, {}, [], [[]], { length: 3 }]);
}

function jsonArrayValue(r: Random, depth: number): object {
  if (depth === 0) return { stringValue: 'leaf' };
  const leaves = Array.from({ length: r.int(3) }, () => ({ stringValue: 'leaf' }));
  return { arrayValue: { values: [jsonArrayValue(r, depth - 1), ...leaves] } };
}

function jsonSpan(r: Random): unknown {
  const span = { ...(r.pick(JSON_SPANS) as Record<string, unknown>) };
  if (r.next() < 0.3) {
    const attributes = Array.isArray(span.attributes) ? [...span.attributes] : [];
    for (let i = count(r); i > 0; i--) attributes.push({ key: `k${i}`, value: jsonArrayValue(r, r.int(40)) });
    span.attributes = wrongOr(r, () => attributes);
    span.events = wrongOr(r, () => Array.from({ length: count(r) }, () => ({ name: 'e', attributes: [] })));
  }
  return wrongOr(r, () => span);
}

function jsonBody(r: Random): unknown {
  const resourceCount = count(r, OTLP_LIMITS.resources);
  return {
    resourceSpans: wrongOr(r, () =>
      Array.from({ length: resourceCount }, (_, i) =>
        i > 3
          ? {}
          : wrongOr(r, () => ({
              resource: wrongOr(r, () => ({ attributes: [{ key: 'service.name', value: { stringValue: 's' } }] })),
              scopeSpans: wrongOr(r, () =>
                Array.from({ length: count(r) }, (__, s) =>
                  wrongOr(r, () => ({
                    scope: { name: `scope-${s}` },
                    spans: wrongOr(r, () => Array.from({ length: count(r) }, () => jsonSpan(r))),
                  })),
                ),
              ),
            })),
      ),
    ),
  };
}

/** One body of a random container shape, in either encoding. */
export function fuzzOtlpContainers(r: Random): { body: Bytes; encoding: 'protobuf' | 'json' } {
  if (r.next() < 0.5) return { body: protoBody(r), encoding: 'protobuf' };
  return { body: new TextEncoder().encode(JSON.stringify(jsonBody(r))), encoding: 'json' };
}
