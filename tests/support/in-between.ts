import { BASE_TS, clientEvent, rpcError } from './events.ts';

/**
 * Denials that did not hold with each kind of "in between" (DOMAIN.md sections 5 and 10), hand-built in the grammar
 * the mcp-ts-v2 corpus recorded (`_meta` protocol version and clientInfo, a `server/discover` probe): one client,
 * one server, a tool per case. `expected` is each denial's [newSession, reprobed, restarted], oldest first.
 */
export function inBetweenScenario() {
  const at = (seconds: number) => new Date(BASE_TS + seconds * 1000).toISOString();
  const denied = rpcError(-32003, 'Sampling denied: budget exhausted', {
    reason: 'policy.budget_exhausted',
    retryable: false,
  });
  /** A 2026-07-28 call of `tool` from the client instance `version` (none: the request names no clientInfo). */
  const call = (seconds: number, tool: string, refused: boolean, version?: string) => {
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      ...(version === undefined ? {} : { 'io.modelcontextprotocol/clientInfo': { name: 'agent', version } }),
    };
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {}, _meta } };
    return clientEvent({ ts: at(seconds), request, ...(refused ? { response: denied } : {}) });
  };
  const probe = (seconds: number) =>
    clientEvent({
      ts: at(seconds),
      request: { jsonrpc: '2.0', id: 'server-discover-probe-1', method: 'server/discover', params: {} },
      response: { jsonrpc: '2.0', id: 'server-discover-probe-1', result: { supportedVersions: ['2026-07-28'] } },
    });
  const legacy = (seconds: number, session: string, refused: boolean) =>
    clientEvent({ ts: at(seconds), session, ...(refused ? { response: denied } : {}) });
  const events = [
    // Re-probed between, the same instance.
    call(0, 'a', true, '1.0.0'),
    probe(5),
    call(10, 'a', false, '1.0.0'),
    // Back as another version, no probe (the one at 5 s came before this refusal).
    call(20, 'b', true, '1.0.0'),
    call(30, 'b', false, '1.1.0'),
    // Neither; then a client that names no instance.
    call(40, 'c', true, '1.0.0'),
    call(50, 'c', false, '1.0.0'),
    call(60, 'd', true),
    call(70, 'd', false),
    // 2025-era: the session question, none of these.
    legacy(80, 's1', true),
    legacy(90, 's2', false),
  ];
  const expected = [
    [null, true, false],
    [null, false, true],
    [null, false, false],
    [null, false, null],
    [true, null, null],
  ];
  return { events, expected, from: BASE_TS - 3_600_000, to: BASE_TS + 3_600_000 };
}
