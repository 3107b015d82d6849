import type { DiscoveryDocument } from '../discovery.ts';
import type { LensEvent } from '../event.ts';
import type { CodeOverride, ServerPolicy } from './types.ts';

/** A validated event as ingest hands it over: defaults applied, `ts` in epoch ms. */
export function event(fields: Partial<LensEvent> = {}): LensEvent {
  return {
    ts: 1_793_620_801_234,
    source: 'client',
    client: 'agent-7',
    server: 'release-notes',
    protocol: 'mcp',
    ...fields,
  };
}

/** A JSON-RPC error answer on a POST to /mcp, HTTP 200 unless told otherwise. */
export function rpcError(code: number, data?: unknown, status = 200, fields: Partial<LensEvent> = {}): LensEvent {
  const error: Record<string, unknown> = { code, message: 'refused' };
  if (data !== undefined) error.data = data;
  return event({
    http: { method: 'POST', path: '/mcp', status },
    response: { jsonrpc: '2.0', id: 1, error },
    ...fields,
  });
}

/** A proxy line: method, path and status, no JSON-RPC body. */
export function httpOnly(status: number, path = '/mcp', fields: Partial<LensEvent> = {}): LensEvent {
  return event({ source: 'proxy', http: { method: 'POST', path, status }, ...fields });
}

/** A tools/call answered at HTTP 200 with an isError result. */
export function toolError(text: string, extra: Record<string, unknown> = {}): LensEvent {
  return event({
    http: { method: 'POST', path: '/mcp', status: 200 },
    request: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'foo', arguments: {} } },
    response: { jsonrpc: '2.0', id: 3, result: { isError: true, content: [{ type: 'text', text }], ...extra } },
  });
}

export const MCP_DOC: DiscoveryDocument = {
  format: 'plain',
  endpoints: [{ method: 'POST', path: '/mcp' }, { method: 'GET', path: '/mcp' }, { path: '/health' }],
  methods: ['tools/call'],
};

export function policy(discovery: DiscoveryDocument | null = MCP_DOC, overrides: CodeOverride[] = []): ServerPolicy {
  return { discovery, overrides };
}
