import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, EmptyResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { parseEventLine } from '../../shared/event.ts';
import {
  INITIALIZE,
  peakMemory,
  RawPeer,
  readEvents,
  recorded,
  SERVER,
  tapCommand,
  WatchedTransport,
} from '../fixtures/tap/harness.ts';
import { lens } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'lens-tap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function folder(name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  return path;
}

/** What each call of the standard session gave the client: a result, or the error the SDK threw. */
type Outcome = { result: unknown } | { code: number | undefined; message: string };

/**
 * A host's session as the SDK client makes it, over stdio to `command`: initialize, list, a tool that answers, one
 * that answers isError, an unknown tool, a missing resource, an unknown method, a tool that makes the server ask
 * the client for sampling, and a ping. Answers the client's view of the wire and what each call gave it.
 */
async function hostSession(command: string[]) {
  const [program, ...args] = command as [string, ...string[]];
  const transport = new WatchedTransport(new StdioClientTransport({ command: program, args, stderr: 'pipe' }));
  const client = new Client({ name: 'tap-test-host', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    model: 'test-model',
    role: 'assistant',
    content: { type: 'text', text: 'three fixes, one feature' },
  }));
  const outcomes: Outcome[] = [];
  const settle = async (call: () => Promise<unknown>) => {
    try {
      outcomes.push({ result: await call() });
    } catch (error) {
      outcomes.push({ code: error instanceof McpError ? error.code : undefined, message: String(error) });
    }
  };
  await client.connect(transport);
  await settle(() => client.listTools());
  await settle(() => client.callTool({ name: 'echo', arguments: { text: 'héllo ✓ 𝄞 "q"' } }));
  await settle(() => client.callTool({ name: 'fail_tool', arguments: {} }));
  await settle(() => client.callTool({ name: 'no_such_tool', arguments: {} }));
  await settle(() => client.readResource({ uri: 'note://missing' }));
  await settle(() => client.request({ method: 'nonexistent/method' }, EmptyResultSchema));
  await settle(() => client.callTool({ name: 'ask', arguments: {} }));
  await settle(() => client.ping());
  await client.close();
  return { transport, outcomes };
}

describe('lens tap over stdio, with the official SDK client and server', () => {
  it('passes every byte both ways unchanged, and its events are the client’s own view of its calls', async () => {
    const direct = folder('direct');
    const outer = folder('outer');
    const inner = folder('inner');
    const events = join(dir, 'session.ndjson');
    const alone = await hostSession(recorded(direct, ['node', SERVER]));
    const tapped = await hostSession(
      recorded(outer, tapCommand(['--server', 'fixture', '--out', events, '--', ...recorded(inner, ['node', SERVER])])),
    );

    // What the client wrote reached the server, and what the server wrote reached the client, byte for byte; and
    // the client saw exactly what it saw without the tap.
    for (const stream of ['in', 'out', 'err']) {
      const host = readFileSync(join(outer, stream));
      expect(host.length, stream).toBeGreaterThan(0);
      expect(host.equals(readFileSync(join(inner, stream))), `${stream} through the tap`).toBe(true);
      expect(host.equals(readFileSync(join(direct, stream))), `${stream} with and without the tap`).toBe(true);
    }
    expect(tapped.outcomes).toEqual(alone.outcomes);

    // One event per request of either side, each with the very frames the client sent and received.
    const lines = readFileSync(events, 'utf8').trimEnd().split('\n');
    for (const line of lines) {
      const parsed = parseEventLine(line);
      expect(parsed.ok && parsed.warnings).toEqual([]);
    }
    const written = lines.map((line) => JSON.parse(line));
    const calls = written.filter((e) => e.request !== undefined);
    const view = tapped.transport.calls();
    expect(calls.map((e) => ({ request: e.request, response: e.response }))).toEqual(
      expect.arrayContaining(view.map(({ request, response }) => ({ request, response }))),
    );
    expect(calls).toHaveLength(view.length);
    expect(view.map(({ request }) => 'method' in request && request.method)).toEqual([
      'initialize',
      'tools/list',
      'tools/call',
      'tools/call',
      'tools/call',
      'resources/read',
      'nonexistent/method',
      'tools/call',
      'ping',
      'sampling/createMessage',
    ]);
    for (const call of calls) {
      expect(call).toMatchObject({ source: 'client', client: 'tap-test-host', server: 'fixture', protocol: 'mcp' });
      expect(call.latencyMs).toBeGreaterThanOrEqual(0);
      expect(call.timeout).toBeUndefined();
    }
    expect(new Set(written.map((e) => e.id)).size).toBe(written.length);
    expect(new Set(written.map((e) => e.session)).size).toBe(1);
    // The server's start-up line on stderr, before the host named itself in initialize, is the host's record too.
    expect(written.filter((e) => e.tap?.stderr !== undefined).map((e) => [e.client, e.tap.stderr])).toEqual([
      ['tap-test-host', 'tap-fixture: listening on stdio'],
    ]);
    expect(written.at(-1)?.tap).toEqual({ exit: { code: 0, signal: null } });

    // Read as any native log: the outcomes the client saw, bucketed.
    const classified = await lens(['classify', events]);
    expect(classified.code).toBe(0);
    const byId = new Map(
      classified.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line))
        .map((row) => [row.id, row]),
    );
    const verdict = (method: string, name?: string) => {
      const event = calls.find(
        (e) => e.request.method === method && (name === undefined || e.request.params.name === name),
      );
      const row = byId.get(event?.id);
      return [row?.bucket, row?.kind];
    };
    expect(verdict('tools/call', 'echo')).toEqual(['ok', 'ok']);
    expect(verdict('tools/call', 'fail_tool')).toEqual(['ambiguous', 'tool_error']);
    expect(verdict('tools/call', 'no_such_tool')).toEqual(['refusal', 'invalid_params']);
    expect(verdict('resources/read')).toEqual(['refusal', expect.any(String)]);
    expect(verdict('nonexistent/method')).toEqual(['refusal', 'not_supported']);
    expect(verdict('sampling/createMessage')).toEqual(['ok', 'ok']);
  });

  it('survives the server crashing: what came before is kept, the crash and the unanswered call recorded', async () => {
    const events = join(dir, 'crash.ndjson');
    const host = new RawPeer(tapCommand(['--server', 'fixture', '--out', events, '--', 'node', SERVER]));
    host.send(INITIALIZE);
    await host.lines(1);
    host.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    host.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } });
    await host.lines(2);
    host.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'crash', arguments: {} } });
    expect(await host.exited).toBe(3);
    expect(host.stderr).toContain('fatal: the disk is on fire');
    expect(host.stderr).not.toContain('lens tap');

    const written = readEvents(events);
    const calls = written.filter((e) => e.request !== undefined) as { request: { id: number }; response?: unknown }[];
    expect(calls.map((e) => [e.request.id, e.response !== undefined])).toEqual([
      [0, true],
      [1, true],
      [2, false],
    ]);
    expect(written.find((e) => (e.request as { id?: number })?.id === 2)).toMatchObject({
      timeout: true,
      client: 'raw-host',
    });
    const stderr = written.flatMap((e) =>
      (e.tap as { stderr?: string })?.stderr === undefined ? [] : [(e.tap as { stderr: string }).stderr],
    );
    expect(stderr).toEqual([
      'tap-fixture: listening on stdio',
      'fatal: the disk is on fire',
      '    at crash (server.mjs)',
    ]);
    expect(written.at(-1)?.tap).toEqual({ exit: { code: 3, signal: null } });
  });

  it('passes a 50 MB frame intact without holding it, and keeps a 3 MB one whole', async () => {
    const inner = folder('big');
    const events = join(dir, 'big.ndjson');
    const host = new RawPeer(
      tapCommand(['--server', 'fixture', '--out', events, '--', ...recorded(inner, ['node', SERVER])]),
    );
    host.send(INITIALIZE);
    await host.lines(1);
    const pid = host.child.pid as number;
    const before = peakMemory(pid);
    host.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big', arguments: { mb: 3 } } });
    await host.lines(2);
    host.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'big', arguments: { mb: 50 } } });
    const [, , huge] = await host.lines(3);
    const grown = peakMemory(pid) - before;
    host.child.stdin.end();
    expect(await host.exited).toBe(0);

    expect(host.bytes().equals(readFileSync(join(inner, 'out')))).toBe(true);
    const frame = JSON.parse(huge as string);
    expect(frame.result.content[0].text.length).toBeGreaterThan(50 * 1024 * 1024);
    // A reader holding the frame would grow by several times its size (bytes, text, parsed); the tap by about it
    // once: V8 collects the chunks' external memory only after some 64 MB of it, so passing 66 MB through a pipe
    // costs any Node process that much before its collector catches up (measured: 1.01 times the frame).
    expect(grown).toBeLessThan(1.5 * Buffer.byteLength(huge as string));

    const [kept, omitted] = readEvents(events).filter((e) => (e.request as { id?: number })?.id !== 0 && e.request);
    const small = (await host.lines(2))[1] as string;
    expect(kept?.response).toEqual(JSON.parse(small));
    expect(omitted?.response).toBeUndefined();
    expect(omitted?.tap).toEqual({
      omitted: { response: { bytes: Buffer.byteLength(huge as string), members: ['result', 'jsonrpc', 'id'], id: 2 } },
    });
  });
});

/** A port nothing listens on yet. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function storedEvents(url: string): Promise<{ id: string }[]> {
  const answer = await fetch(`${url}/api/v1/events?records=all&limit=1000`);
  return ((await answer.json()) as { events: { id: string }[] }).events;
}

describe('lens tap --url, with the collector away', () => {
  let collector: RunningServer | undefined;
  afterAll(async () => collector?.close());

  it('spools on disk while the collector is down, and ships everything once it is up', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const spool = folder('spool');
    const tap = tapCommand(['--server', 'fixture', '--url', url, '--spool', spool, '--', 'node', SERVER]);
    const [program, ...args] = tap as [string, ...string[]];
    const transport = new WatchedTransport(new StdioClientTransport({ command: program, args, stderr: 'pipe' }));
    const client = new Client({ name: 'tap-test-host', version: '1.0.0' });
    await client.connect(transport);
    await client.callTool({ name: 'echo', arguments: { text: 'while away' } });
    await client.callTool({ name: 'fail_tool', arguments: {} });

    // Nobody to send to: the events wait on disk, and the session goes on.
    let spooled: string[] = [];
    for (let i = 0; i < 100 && spooled.length < 3; i++) {
      const [file] = readdirSync(spool);
      spooled = file === undefined ? [] : readFileSync(join(spool, file), 'utf8').trimEnd().split('\n');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(spooled.length).toBeGreaterThanOrEqual(3);

    collector = await startServer({ host: '127.0.0.1', port, dataDir: folder('collector') });
    let stored: { id: string }[] = [];
    for (let i = 0; i < 300 && stored.length < 4; i++) {
      stored = await storedEvents(url);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Shipped while the session still runs: stderr line, initialize, the echo, the isError call.
    expect(stored).toHaveLength(4);

    await client.callTool({ name: 'echo', arguments: { text: 'after' } });
    await client.close();
    // The tap ships what is left as it exits, after the host has closed: wait for it rather than race it.
    let ids: string[] = [];
    for (let i = 0; i < 300 && ids.length < 6; i++) {
      ids = (await storedEvents(url)).map((e) => e.id).sort();
      if (ids.length < 6) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(ids).toHaveLength(6);
    expect(ids.every((id) => id.startsWith('tap-'))).toBe(true);
    // Everything arrived: the spool is gone.
    expect(readdirSync(spool)).toEqual([]);
  });

  it('says at exit what it could not send, and where it is kept', async () => {
    const spool = folder('spool-never');
    const url = `http://127.0.0.1:${await freePort()}`;
    const host = new RawPeer(tapCommand(['--server', 'fixture', '--url', url, '--spool', spool, '--', 'node', SERVER]));
    host.send(INITIALIZE);
    await host.lines(1);
    host.child.stdin.end();
    expect(await host.exited).toBe(0);
    const [file] = readdirSync(spool);
    expect(file).toBeDefined();
    const kept = join(spool, file as string);
    expect(host.stderr).toContain(`lens tap: 3 event(s) not sent to ${url}`);
    expect(host.stderr).toContain(`npm run lens -- ingest ${kept} --url ${url}`);
    expect(readEvents(kept)).toHaveLength(3);
  });

  it('leaves the wait for a collector that does not answer when the host sends SIGTERM, and says what it kept', async () => {
    // A collector that takes the connection and never answers: the tap waits for it at exit (up to its drain bound).
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const spool = folder('spool-silent');
    const host = new RawPeer(tapCommand(['--server', 'fixture', '--url', url, '--spool', spool, '--', 'node', SERVER]));
    host.send(INITIALIZE);
    await host.lines(1);
    host.child.stdin.end();
    // The server's exit is the third event: once it is on disk the server is gone and the tap is draining.
    let lines = 0;
    for (let i = 0; i < 200 && lines < 3; i++) {
      const [file] = readdirSync(spool);
      lines = file === undefined ? 0 : readEvents(join(spool, file)).length;
      if (lines < 3) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(lines).toBe(3);
    // What a host's SDK does two seconds after closing the server's stdin.
    host.child.kill('SIGTERM');
    expect(await host.exited).toBe(0);
    expect(host.stderr).toContain(`event(s) not sent to ${url}`);
    expect(readdirSync(spool)).toHaveLength(1);
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('never stops the traffic when it cannot write: the loss is counted and said', async () => {
    const events = join(dir, 'no-such-dir', 'events.ndjson');
    const host = new RawPeer(tapCommand(['--server', 'fixture', '--out', events, '--', 'node', SERVER]));
    host.send(INITIALIZE);
    const [answer] = await host.lines(1);
    expect(JSON.parse(answer as string).result.serverInfo.name).toBe('tap-fixture');
    host.child.stdin.end();
    expect(await host.exited).toBe(0);
    expect(existsSync(events)).toBe(false);
    expect(host.stderr).toMatch(/lens tap: 3 event\(s\) lost: cannot write .*events\.ndjson \(ENOENT/);
  });
});

describe('lens tap, its command line', () => {
  it('hands the server its own --help and exit code, and says what is missing', async () => {
    const out = join(dir, 'x.ndjson');
    const server = new RawPeer(
      tapCommand([
        '--server',
        'x',
        '--out',
        out,
        '--',
        'node',
        '-e',
        'console.log(process.argv[1]); process.exit(7)',
        '--',
        '--help',
      ]),
    );
    // Each its own process, started together: the machine's two cores, not the test's clock, set the pace.
    const [code, help, missing, nowhere, unknown, program] = await Promise.all([
      server.exited,
      lens(['tap', '--help']),
      lens(['tap', '--out', 'x.ndjson', '--', 'node']),
      lens(['tap', '--server', 'x', '--', 'node']),
      lens(['tap', '--server', 'x', '--out', join(dir, 'y.ndjson'), '--', 'no-such-program-here']),
      lens(['--help']),
    ]);
    expect(code).toBe(7);
    expect(server.bytes().toString()).toBe('--help\n');
    expect(help.stdout).toContain('--upstream URL');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--server NAME');
    expect(nowhere.stderr).toContain('--out FILE or --url URL');
    expect(unknown.code).toBe(127);
    expect(unknown.stderr).toContain('lens tap: cannot start no-such-program-here');
    expect(readEvents(join(dir, 'y.ndjson'))).toMatchObject([{ client: 'host', tap: { exit: { code: null } } }]);
    expect(program.stdout).toMatch(/^ {2}tap /m);
  });
});
