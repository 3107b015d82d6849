/** Factories for unique, valid native events: each call gets an id no other test uses. */
let counter = 0;
const run = Math.random().toString(36).slice(2, 8);

export function uniqueId(prefix = 'e'): string {
  counter++;
  return `${prefix}-${run}-${counter}`;
}

export interface EventOverrides {
  [key: string]: unknown;
}

export const BASE_TS = Date.parse('2026-11-02T10:00:00Z');

/** A successful tools/call seen by a client. */
export function clientEvent(overrides: EventOverrides = {}): Record<string, unknown> {
  return {
    id: uniqueId(),
    ts: new Date(BASE_TS).toISOString(),
    source: 'client',
    client: 'agent-7',
    server: 'release-notes',
    protocol: 'mcp',
    http: { method: 'POST', path: '/mcp', status: 200 },
    request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { q: 'x' } } },
    response: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }] } },
    latencyMs: 12,
    ...overrides,
  };
}

/** A proxy access-log line: method, path, status, no JSON-RPC body. */
export function proxyEvent(overrides: EventOverrides = {}): Record<string, unknown> {
  return {
    id: uniqueId('p'),
    ts: new Date(BASE_TS).toISOString(),
    source: 'proxy',
    server: 'release-notes',
    http: { method: 'POST', path: '/mcp', status: 200 },
    ...overrides,
  };
}

/** A JSON-RPC error response frame. */
export function rpcError(code: number, message = 'error', data?: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 1, error: { code, message, ...(data === undefined ? {} : { data }) } };
}
