import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEventLine } from '../../shared/event.ts';
import { FIXTURES, readEvents, tapCommand, WatchedTransport } from '../fixtures/tap/harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'lens-tap-http-'));
const running = new Set<ChildProcessWithoutNullStreams>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `command` and waits until it prints a URL on `stream`. */
async function started(command: string[], stream: 'stdout' | 'stderr') {
  const [program, ...args] = command as [string, ...string[]];
  const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
  let said = '';
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  const url = await new Promise<string>((resolve, reject) => {
    child[stream].on('data', (chunk) => {
      said += chunk;
      const found = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(said);
      if (found !== null) resolve(found[0]);
    });
    exited.then((code) => reject(new Error(`${program} exited (${code}): ${said}`)));
  });
  return { child, url, exited, said: () => said };
}

describe('lens tap --listen, a Streamable HTTP reverse proxy, with the official SDK client and server', () => {
  it('passes the session through and records each request with its frames and MCP headers', async () => {
    const upstream = await started(['node', join(FIXTURES, 'http-server.mjs')], 'stdout');
    const events = join(dir, 'http.ndjson');
    const tap = await started(
      tapCommand(['--listen', '0', '--upstream', upstream.url, '--server', 'fixture-http', '--out', events]),
      'stderr',
    );

    const transport = new WatchedTransport(new StreamableHTTPClientTransport(new URL(tap.url)));
    const client = new Client({ name: 'tap-http-host', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      model: 'test-model',
      role: 'assistant',
      content: { type: 'text', text: 'three fixes' },
    }));
    await client.connect(transport);
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'héllo ✓' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'héllo ✓' }]);
    await client.callTool({ name: 'fail_tool', arguments: {} });
    await client.callTool({ name: 'no_such_tool', arguments: {} });
    await expect(client.readResource({ uri: 'note://missing' })).rejects.toThrow(/-32602/);
    await expect(client.request({ method: 'nonexistent/method' }, EmptyResultSchema)).rejects.toThrow(/-32601/);
    const asked = await client.callTool({ name: 'ask', arguments: {} });
    expect(asked.content).toEqual([{ type: 'text', text: 'sampled: three fixes' }]);
    const session = (transport.inner as StreamableHTTPClientTransport).sessionId;

    // What a 2026-07-28 client sends, and what a session the server never issued gets: through the tap and not.
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': 'no-such-session',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      'mcp-protocol-version': '2025-06-18',
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'echo' } });
    const viaTap = await fetch(tap.url, { method: 'POST', headers, body });
    const direct = await fetch(upstream.url, { method: 'POST', headers, body });
    expect([viaTap.status, viaTap.headers.get('content-type'), await viaTap.text()]).toEqual([
      direct.status,
      direct.headers.get('content-type'),
      await direct.text(),
    ]);
    await (transport.inner as StreamableHTTPClientTransport).terminateSession();
    await transport.close();

    tap.child.kill('SIGTERM');
    expect(await tap.exited).toBe(0);
    const written = readEvents(events);
    for (const event of written) {
      const parsed = parseEventLine(JSON.stringify(event));
      expect(parsed.ok && parsed.warnings).toEqual([]);
    }

    // Each request the client or the server sent, with the very frames the client sent and received.
    const calls = written.filter((e) => e.request !== undefined && (e.request as { id?: unknown }).id !== undefined);
    const view = transport.calls();
    expect(calls.map((e) => ({ request: e.request, response: e.response }))).toEqual(
      expect.arrayContaining(view.map(({ request, response }) => ({ request, response }))),
    );
    for (const call of calls) expect(call).toMatchObject({ source: 'proxy', server: 'fixture-http', protocol: 'mcp' });
    const own = calls.filter((e) => e.session === session);
    expect(own.map((e) => (e.request as { method: string }).method).sort()).toEqual(
      view.map(({ request }) => (request as { method: string }).method).sort(),
    );
    for (const call of own) expect(call.client).toBe('tap-http-host');
    const sampling = own.find((e) => (e.request as { method: string }).method === 'sampling/createMessage');
    // The server's request came on the POST's event stream; the client's answer was a POST of its own, 202.
    expect(sampling?.http).toMatchObject({ method: 'POST', path: '/mcp', status: 202 });
    const echo = own.find((e) => (e.request as { params?: { name?: string } }).params?.name === 'echo');
    // The version initialize agreed on, which the SDK client then sends as MCP-Protocol-Version.
    const agreed = (view[0]?.response as unknown as { result?: { protocolVersion?: string } } | undefined)?.result
      ?.protocolVersion;
    expect(echo?.http).toMatchObject({ method: 'POST', path: '/mcp', status: 200, protocolVersion: agreed });
    expect(echo?.latencyMs).toBeGreaterThanOrEqual(0);

    // The stray session's 404: its JSON-RPC error names no id, and is this request's answer all the same.
    const stray = written.find((e) => e.session === 'no-such-session');
    expect(stray).toMatchObject({
      request: JSON.parse(body),
      response: { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
      http: { method: 'POST', status: 404, mcpMethod: 'tools/call', mcpName: 'echo', protocolVersion: '2025-06-18' },
    });
    expect(stray?.timeout).toBeUndefined();

    // The GET that opened the server's stream, the notification's 202 and the DELETE that ended the session.
    const exchanges = written.filter((e) => e.session === session && e.request === undefined);
    expect(exchanges.map((e) => (e.http as { method: string }).method).sort()).toEqual(['DELETE', 'GET']);
    const initialized = written.find((e) => (e.request as { method?: string })?.method === 'notifications/initialized');
    expect(initialized?.http).toMatchObject({ method: 'POST', status: 202 });
    upstream.child.kill('SIGTERM');
  });

  it('answers 502 itself when the upstream does not, and records it', async () => {
    const events = join(dir, 'down.ndjson');
    const tap = await started(
      tapCommand(['--listen', '0', '--upstream', 'http://127.0.0.1:9/mcp', '--server', 'gone', '--out', events]),
      'stderr',
    );
    const answer = await fetch(tap.url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(answer.status).toBe(502);
    expect(await answer.text()).toContain('did not answer');
    tap.child.kill('SIGTERM');
    expect(await tap.exited).toBe(0);
    const [event] = readEvents(events);
    expect(event).toMatchObject({
      source: 'proxy',
      server: 'gone',
      request: { id: 1, method: 'ping' },
      http: { method: 'POST', path: '/mcp', status: 502 },
      tap: { proxyError: expect.stringContaining('ECONNREFUSED') },
    });
    expect(event?.timeout).toBeUndefined();
  });
});
