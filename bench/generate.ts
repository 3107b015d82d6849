/**
 * Deterministic synthetic traffic for benchmarks: a realistic mix of healthy calls, refusals, throttles,
 * transient failures and sampling requests, as NDJSON lines.
 */
export function* syntheticLines(
  count: number,
  seed = 1,
  startTs = Date.parse('2026-11-02T00:00:00Z'),
  spacingMs = 7,
): Generator<string> {
  for (const event of syntheticEvents(count, seed, startTs, spacingMs)) yield JSON.stringify(event);
}

/** One synthetic native event, as `syntheticEvents` makes it (the members the access-log lines are derived from). */
export interface SyntheticEvent {
  id: string;
  ts: number;
  source: 'client' | 'proxy';
  client: string;
  server: string;
  session: string;
  protocol: 'mcp';
  http: { method: string; path: string; status: number; retryAfter?: number };
  request?: object;
  response?: object;
  latencyMs: number;
}

/** The same traffic as `syntheticLines`, as the objects before they are written. */
export function* syntheticEvents(
  count: number,
  seed = 1,
  startTs = Date.parse('2026-11-02T00:00:00Z'),
  spacingMs = 7,
): Generator<SyntheticEvent> {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  for (let i = 0; i < count; i++) {
    const client = `agent-${Math.floor(next() * 40)}`;
    const server = `server-${Math.floor(next() * 25)}`;
    const roll = next();
    const id = i;
    const ts = Math.round(startTs + i * spacingMs);
    const request = {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: `tool-${id % 13}`, arguments: { q: `query ${id % 997}` } },
    };
    const base = {
      id: `bench-${seed}-${i}`,
      ts,
      source: 'client' as const,
      client,
      server,
      session: `s-${client}`,
      protocol: 'mcp' as const,
    };
    let event: SyntheticEvent;
    if (roll < 0.7) {
      event = {
        ...base,
        http: { method: 'POST', path: '/mcp', status: 200 },
        request,
        response: { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'fine' }] } },
        latencyMs: 20,
      };
    } else if (roll < 0.8) {
      event = {
        ...base,
        http: { method: 'POST', path: '/mcp', status: 200 },
        request,
        response: { jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } },
        latencyMs: 4,
      };
    } else if (roll < 0.86) {
      event = {
        ...base,
        source: 'proxy' as const,
        http: { method: 'GET', path: '/mcp/sse', status: 404 },
        latencyMs: 1,
      };
    } else if (roll < 0.9) {
      event = { ...base, http: { method: 'POST', path: '/mcp', status: 429, retryAfter: 30 }, request, latencyMs: 1 };
    } else if (roll < 0.95) {
      event = { ...base, http: { method: 'POST', path: '/mcp', status: 503 }, request, latencyMs: 900 };
    } else {
      const sampling = {
        jsonrpc: '2.0',
        id,
        method: 'sampling/createMessage',
        params: {
          systemPrompt: 'Summarise the release notes.',
          messages: [{ role: 'user', content: { type: 'text', text: `notes ${id % 50}` } }],
          includeContext: 'allServers',
          maxTokens: 400,
        },
      };
      const denial = {
        code: -32003,
        message: 'Sampling denied',
        data: { reason: 'policy.budget_exhausted', retryable: false },
      };
      event = {
        ...base,
        http: { method: 'POST', path: '/mcp', status: 200 },
        request: sampling,
        response: { jsonrpc: '2.0', id, error: denial },
        latencyMs: 3,
      };
    }
    yield event;
  }
}
