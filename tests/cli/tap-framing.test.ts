import { describe, expect, it } from 'vitest';
import type { EventLine } from '../../shared/tap/events.ts';
import { LineSplitter } from '../../shared/tap/lines.ts';
import { messagesOf } from '../../shared/tap/messages.ts';
import { Pairing } from '../../shared/tap/pairing.ts';
import { SseReader } from '../../shared/tap/sse.ts';
import { StdioRecorder } from '../../shared/tap/stdio-recorder.ts';
import { TopLevelScanner } from '../../shared/tap/top-level.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds `text` in pieces of `size` bytes, so that every boundary falls somewhere new. */
function scanned(text: string, size: number) {
  const scanner = new TopLevelScanner();
  const all = bytes(text);
  for (let at = 0; at < all.length; at += size) scanner.push(all.subarray(at, at + size));
  return scanner.summary();
}

describe('the top-level summary of a frame too large to keep', () => {
  const frame = JSON.stringify({
    result: { content: [{ type: 'text', text: 'a "quoted" \\ back\nslash ✓ {"id": 7}' }], id: 'nested' },
    jsonrpc: '2.0',
    id: 42,
  });

  it('finds the top-level id after the body, whatever the piece size, and never a nested one', () => {
    for (const size of [1, 2, 3, 7, 64, frame.length]) {
      expect(scanned(frame, size)).toEqual({
        bytes: bytes(frame).length,
        members: ['result', 'jsonrpc', 'id'],
        id: 42,
      });
    }
  });

  it('reads a request’s method, a string id and an error’s code', () => {
    expect(scanned('{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"x":[1,2]}}', 5)).toMatchObject({
      id: 'a-1',
      method: 'tools/call',
    });
    expect(scanned(' { "error" : { "message":"no", "code" : -32602 }, "id" : null } ', 3)).toMatchObject({
      members: ['error', 'id'],
      id: null,
      errorCode: -32602,
    });
  });

  it('says nothing of what is not an object', () => {
    expect(scanned('[{"id":1}]', 2)).toEqual({ bytes: 10, members: [] });
  });
});

describe('lines of a stdio stream', () => {
  it('splits at newlines across chunks, drops \\r and blank lines, and summarises a line past the bound', () => {
    const splitter = new LineSplitter(32, 'summary');
    const long = '{"jsonrpc":"2.0","id":3,"result":{"text":"long enough to pass the bound"}}';
    const lines = [
      ...splitter.push(bytes('{"id":1,"method":"a"}\r\n\n{"id"')),
      ...splitter.push(bytes(`:2}\n${long}\n`)),
    ];
    expect(lines).toEqual([
      { text: '{"id":1,"method":"a"}', bytes: 22 },
      { text: '{"id":2}', bytes: 8 },
      { bytes: long.length, summary: { bytes: long.length, members: ['jsonrpc', 'id', 'result'], id: 3 } },
    ]);
    expect(splitter.end()).toBeNull();
  });

  it('keeps the start of a long stderr line and its length, and the last line without its newline', () => {
    const splitter = new LineSplitter(10, 'head');
    expect(splitter.push(bytes('Traceback (most recent call last):\nValueEr'))).toEqual([
      { bytes: 34, head: 'Traceback ' },
    ]);
    expect(splitter.push(bytes('ror: bad'))).toEqual([]);
    expect(splitter.end()).toEqual({ bytes: 15, head: 'ValueError' });
  });

  it('reads a batch as its messages and a line that is not JSON-RPC as none', () => {
    const batch = messagesOf('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"}]');
    expect(batch?.map((m) => m.kind)).toEqual(['request', 'notification']);
    expect(messagesOf('Server started on stdio')).toBeNull();
    expect(messagesOf('"a string"')).toBeNull();
  });
});

describe('an SSE answer', () => {
  it('gives each event’s data as it completes, however the stream is cut', () => {
    const stream =
      'event: message\r\nid: 1\r\ndata: {"id":1,\r\ndata:"result":{}}\r\n\r\n: keep-alive\n\ndata: {"id":2}\n\n';
    for (const size of [1, 4, 13, stream.length]) {
      const reader = new SseReader(1024);
      const all = bytes(stream);
      const seen = [];
      for (let at = 0; at < all.length; at += size) seen.push(...reader.push(all.subarray(at, at + size)));
      expect(seen.map((line) => 'text' in line && JSON.parse(line.text))).toEqual([{ id: 1, result: {} }, { id: 2 }]);
    }
  });
});

describe('pairing requests with their answers', () => {
  const sent = (frame: object) =>
    messagesOf(JSON.stringify(frame))?.[0] as NonNullable<ReturnType<typeof messagesOf>>[0];

  it('keeps the two directions’ ids apart and counts answers to nothing', () => {
    const pairing = new Pairing(1_000);
    pairing.see('client', sent({ id: 1, method: 'tools/call' }), 0);
    pairing.see('server', sent({ id: 1, method: 'sampling/createMessage' }), 5);
    const sampling = pairing.see('client', sent({ id: 1, result: {} }), 8);
    expect(sampling.map((c) => [c.sender, c.method, c.latencyMs, c.timeout])).toEqual([
      ['server', 'sampling/createMessage', 3, false],
    ]);
    const call = pairing.see('server', sent({ id: 1, result: {} }), 20);
    expect(call.map((c) => [c.sender, c.method, c.latencyMs])).toEqual([['client', 'tools/call', 20]]);
    expect(pairing.see('server', sent({ id: '1', result: {} }), 21)).toEqual([]);
    expect(pairing.unmatched).toBe(1);
  });

  it('makes a timeout of a request past the bound, and of one its sender cancelled, late answer kept', () => {
    const pairing = new Pairing(1_000);
    pairing.see('client', sent({ id: 1, method: 'tools/call' }), 0);
    pairing.see('client', sent({ id: 2, method: 'tools/call' }), 500);
    expect(pairing.expire(999)).toEqual([]);
    expect(pairing.expire(1_000).map((c) => [c.request.at, c.timeout, c.response])).toEqual([[0, true, undefined]]);
    pairing.see(
      'client',
      sent({ method: 'notifications/cancelled', params: { requestId: 2, reason: 'Request timed out' } }),
      600,
    );
    const [late] = pairing.see('server', sent({ id: 2, result: {} }), 700);
    expect(late).toMatchObject({ timeout: true, cancelled: 'Request timed out', latencyMs: 200 });
    expect(pairing.size).toBe(0);
  });
});

describe('the stdio recorder', () => {
  it('holds the server’s first lines until the host names itself, and records a cancelled call as a timeout', () => {
    const events: EventLine[] = [];
    let now = 0;
    const recorder = new StdioRecorder({
      server: 'files',
      session: 's',
      boundMs: 60_000,
      idPrefix: 't',
      emit: (event) => events.push(event),
      now: () => now,
    });
    recorder.stderr(bytes('starting\n'));
    expect(events).toEqual([]);
    recorder.bytes(
      'client',
      bytes(
        `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { clientInfo: { name: 'claude-ai' } } })}\n`,
      ),
    );
    expect(events).toMatchObject([
      { id: 't-1', client: 'claude-ai', record: 'server_event', tap: { stderr: 'starting' } },
    ]);
    now = 10;
    recorder.bytes('server', bytes('{"jsonrpc":"2.0","id":0,"result":{}}\nnot json at all\n'));
    recorder.bytes('client', bytes('{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n'));
    now = 1_510;
    recorder.bytes(
      'client',
      bytes(
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"Request timed out"}}\n',
      ),
    );
    now = 5_000;
    recorder.bytes('server', bytes('{"jsonrpc":"2.0","id":1,"result":{"late":true}}\n'));
    recorder.exited({ code: 0, signal: null });
    expect(events.map((e) => [e.latencyMs, e.timeout, e.tap])).toEqual([
      [undefined, undefined, { stderr: 'starting' }],
      [10, undefined, undefined],
      [undefined, undefined, { stdout: 'not json at all' }],
      [4_990, true, { cancelled: 'Request timed out' }],
      [undefined, undefined, { exit: { code: 0, signal: null } }],
    ]);
  });
});
