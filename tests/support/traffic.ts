import { BASE_TS, clientEvent, proxyEvent, rpcError } from './events.ts';

/** A seeded mix: refusals, throttles, 5xx, proxy copies of client requests, undeclared 404s, over ~3 hours. */
export function mixedTraffic(count: number, seed: number) {
  let state = seed;
  const rand = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const events: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const ts = BASE_TS + Math.floor(rand() * 3 * 3_600_000);
    const client = `c${Math.floor(rand() * 4)}`;
    const server = `s${Math.floor(rand() * 3)}`;
    const roll = rand();
    const request = {
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: `t${i % 5}`, _meta: { traceparent: `tp-${i}` } },
    };
    if (roll < 0.3) events.push(clientEvent({ ts, client, server, request }));
    else if (roll < 0.45) events.push(clientEvent({ ts, client, server, request, response: rpcError(-32602, 'bad') }));
    else if (roll < 0.55)
      events.push(
        clientEvent({
          ts,
          client,
          server,
          request,
          http: { method: 'POST', path: '/mcp', status: 429, retryAfter: 20 },
        }),
      );
    else if (roll < 0.65)
      events.push(clientEvent({ ts, client, server, request, http: { method: 'POST', path: '/mcp', status: 503 } }));
    else if (roll < 0.8) {
      const http = { method: 'POST', path: `/p${i % 3}`, status: 404 };
      events.push(proxyEvent({ ts, client, server, http, ...(i % 2 === 0 && { discoveryRead: false }) }));
    } else {
      // The same request seen by a client and by a proxy: counted once.
      events.push(clientEvent({ ts, client, server, request, response: rpcError(-32603, 'oops') }));
      // Half the proxy copies saw the failure too: shadowing takes a failure out of the counts per code.
      events.push(
        proxyEvent({ ts, client, server, request, ...(i % 2 === 0 && { response: rpcError(-32603, 'oops') }) }),
      );
    }
  }
  // Sampling requests with every requested x applied pair, some also logged by a proxy (counted once).
  const scopes = ['none', 'thisServer', 'allServers'];
  for (let i = 0; i < 300; i++) {
    const ts = BASE_TS + Math.floor(rand() * 3 * 3_600_000);
    const client = `c${Math.floor(rand() * 4)}`;
    const server = `s${Math.floor(rand() * 3)}`;
    const requested = scopes[Math.floor(rand() * 3)];
    const appliedRoll = Math.floor(rand() * 4);
    const context =
      appliedRoll === 3
        ? undefined
        : { requested, applied: scopes[appliedRoll], ...(rand() < 0.5 && { reason: `r${i % 2}` }) };
    const request = {
      jsonrpc: '2.0',
      id: `s${i}`,
      method: 'sampling/createMessage',
      params: { messages: [], includeContext: requested, maxTokens: 10, _meta: { traceparent: `sp-${i}` } },
    };
    const response = {
      jsonrpc: '2.0',
      id: `s${i}`,
      result: { role: 'assistant', ...(context && { _meta: { context } }) },
    };
    events.push(clientEvent({ ts, client, server, request, response }));
    if (i % 5 === 0) events.push(proxyEvent({ ts, client, server, request, response }));
  }
  return events;
}
