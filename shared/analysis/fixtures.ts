/**
 * Test factories for the analyses: `AnalysisEvent`s with sensible defaults, unique ids and arrival order, so a
 * test spells out only what it is about.
 */
import { KIND_INFO } from '../classify/kinds.ts';
import type { Bucket } from '../classify/types.ts';
import type { AnalysisEvent } from './types.ts';

/** 2026-11-02T10:00:00.000Z, the date of record of seed 000. */
export const T0 = Date.UTC(2026, 10, 2, 10, 0, 0);

let counter = 0;

/**
 * A successful client `tools/call` POST /mcp from `agent-7` to `release-notes` at `T0`, with a fresh id (`ev-N`)
 * and `seq` (arrival order follows creation order). Overrides win. Giving a `kind` without a `bucket` takes the
 * kind's bucket (`not_declared` → refusal), and `rule` defaults to `test.<kind>`.
 */
export function analysisEvent(overrides: Partial<AnalysisEvent> = {}): AnalysisEvent {
  counter++;
  const kind = overrides.kind ?? 'ok';
  return {
    id: `ev-${counter}`,
    ts: T0,
    seq: counter,
    source: 'client',
    protocol: 'mcp',
    client: 'agent-7',
    server: 'release-notes',
    session: null,
    httpMethod: 'POST',
    httpPath: '/mcp',
    httpStatus: 200,
    rpcMethod: 'tools/call',
    rpcName: null,
    rpcCode: null,
    answered: true,
    latencyMs: 12,
    identity: null,
    bucket: overrides.bucket ?? bucketOf(kind),
    kind,
    rule: kind === 'ok' ? 'ok' : `test.${kind}`,
    waitUntil: null,
    discoveryRead: true,
    counted: true,
    era: null,
    protocolVersion: null,
    continuation: false,
    context: null,
    ...overrides,
  };
}

/** `T0` plus whole or fractional seconds: traces read as "10:00:05", not as epoch numbers. */
export function at(seconds: number): number {
  return T0 + Math.round(seconds * 1000);
}

/** A copy of `items` in a pseudo-random order fixed by `seed` (Fisher-Yates over a small LCG). */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
  }
  return out;
}

type Shape = Partial<AnalysisEvent>;
const SHAPES: Shape[] = [
  {},
  {},
  { identity: 'release-notes:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' },
  { httpPath: '/mcp/sse', httpStatus: 404, kind: 'not_declared' },
  { httpPath: '/sse', httpMethod: 'GET', rpcMethod: null, httpStatus: 404, kind: 'not_declared' },
  { rpcMethod: 'tasks/list', rpcCode: -32601, kind: 'not_supported' },
  { httpMethod: 'GET', rpcMethod: null, httpStatus: 405, kind: 'not_supported' },
  { httpMethod: 'GET', rpcMethod: null },
  { rpcMethod: 'initialize', httpStatus: 502, kind: 'upstream_error' },
  { rpcMethod: 'server/discover', httpStatus: 502, kind: 'upstream_error' },
  { rpcMethod: 'initialize' },
  { httpStatus: 503, kind: 'unavailable' },
  { httpStatus: 400, rpcCode: -32602, kind: 'invalid_params' },
  { kind: 'tool_error' },
  { kind: 'rate_limited', httpStatus: 429 },
  { rpcMethod: 'sampling/createMessage', rpcCode: -32003, kind: 'policy_denied', httpStatus: 202 },
];

/** A pseudo-random trace of two clients on two servers: bursts, long gaps, shared timestamps, every storm kind. */
export function randomTrace(seed: number, length: number): AnalysisEvent[] {
  let state = seed >>> 0 || 1;
  const next = (n: number) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % n;
  };
  const events: AnalysisEvent[] = [];
  let seconds = 0;
  for (let i = 0; i < length; i++) {
    seconds += [0, 0, 1, 2, 3, 5, 8, 13, 45, 61, 70, 290, 400][next(13)] ?? 1;
    const shape = SHAPES[next(SHAPES.length)] ?? {};
    events.push(
      analysisEvent({
        ts: at(seconds),
        client: next(5) === 0 ? 'agent-b' : 'agent-a',
        server: next(4) === 0 ? 'other' : 'release-notes',
        identity: 'release-notes:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
        ...shape,
        waitUntil: shape.kind === 'rate_limited' ? at(seconds + 1 + next(20)) : null,
        counted: next(20) !== 0,
      }),
    );
  }
  return events;
}

function bucketOf(kind: string): Bucket {
  return (KIND_INFO as Readonly<Record<string, { bucket: Bucket } | undefined>>)[kind]?.bucket ?? 'ambiguous';
}

export interface Seed000Traces {
  /** server/discover → -32601, read as authoritative: one request. */
  discoverer: AnalysisEvent[];
  /** 22 POSTs cycling over three undeclared paths, each answered 404 (refusal / not_declared). */
  prober: AnalysisEvent[];
  /** initialize → 200, then the same tools/call on a missing slug three times → -32602 (refusal / invalid_params). */
  thirdClient: AnalysisEvent[];
}

/** Seed 000's three clients, rebuilt as analysis events against `release-notes`, 2 s to 3 s apart. */
export function seed000(): Seed000Traces {
  const discoverer = [
    analysisEvent({
      client: 'discoverer',
      ts: at(0),
      rpcMethod: 'server/discover',
      identity: 'release-notes:5d0c1f8e3a7b9d2c4e6f8a0b1c3d5e7f',
      rpcCode: -32601,
      kind: 'not_supported',
      rule: 'rpc.method_not_found',
    }),
  ];
  const paths = ['/mcp/mcp', '/mcp/sse', '/mcp/a2a/'];
  const prober: AnalysisEvent[] = [];
  for (let i = 0; i < 22; i++) {
    prober.push(
      analysisEvent({
        client: 'prober',
        ts: at(10 + i * 2),
        httpPath: paths[i % paths.length] ?? '/mcp/mcp',
        httpStatus: 404,
        rpcMethod: 'initialize',
        identity: 'release-notes:0f4e2a1c9b8d7e6f5a4b3c2d1e0f9a8b',
        kind: 'not_declared',
        rule: 'http.404.not_declared',
        discoveryRead: false,
      }),
    );
  }
  const missingSlug = 'release-notes:9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d';
  const call = (seconds: number) =>
    analysisEvent({
      client: 'third',
      ts: at(seconds),
      session: 's-third',
      identity: missingSlug,
      rpcCode: -32602,
      kind: 'invalid_params',
      rule: 'rpc.request_repair',
    });
  const thirdClient = [
    analysisEvent({
      client: 'third',
      ts: at(100),
      rpcMethod: 'initialize',
      identity: 'release-notes:1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e',
    }),
    call(101),
    call(103),
    call(106),
  ];
  return { discoverer, prober, thirdClient };
}
