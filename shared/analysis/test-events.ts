import type { AnalysisEvent } from './types.ts';

/** A fixed instant that makes expectations readable: 2026-11-02T10:00:00Z. */
export const T0 = Date.parse('2026-11-02T10:00:00.000Z');

let next = 0;

/**
 * A counted, successful client event with a unique id and arrival order; tests state only what they are about.
 * Ids and seqs are unique across the whole test run, so no test can depend on another's rows.
 */
export function analysisEvent(overrides: Partial<AnalysisEvent> = {}): AnalysisEvent {
  next += 1;
  return {
    id: `ev-${next}`,
    ts: T0,
    seq: next,
    source: 'client',
    client: 'agent-7',
    server: 'release-notes',
    session: null,
    httpMethod: 'POST',
    httpPath: '/mcp',
    httpStatus: 200,
    rpcMethod: 'tools/call',
    rpcCode: null,
    latencyMs: 10,
    identity: null,
    bucket: 'ok',
    kind: 'ok',
    rule: 'ok',
    waitUntil: null,
    discoveryRead: true,
    counted: true,
    context: null,
    ...overrides,
  };
}

/** Deterministic shuffle (no Math.random) so that an order-independence test fails the same way every run. */
export function shuffled<T>(items: readonly T[], seed = 7): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i -= 1) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = state % (i + 1);
    const a = out[i];
    const b = out[j];
    if (a === undefined || b === undefined) continue;
    out[i] = b;
    out[j] = a;
  }
  return out;
}
