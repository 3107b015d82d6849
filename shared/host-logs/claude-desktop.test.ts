import { describe, expect, it } from 'vitest';
import { hostLogText } from '../../tests/support/corpus.ts';
import { splitNdjson } from '../batch.ts';
import { classify } from '../classify/index.ts';
import { NO_POLICY } from '../classify/types.ts';
import { validateEvent } from '../event.ts';
import { detectFormat } from '../proxy-logs/detect.ts';
import { type HostRead, readHostLog } from './index.ts';

/**
 * Claude Desktop's logs, one test per trap of FORMATS.md. The fixtures (tests/fixtures/hostlogs/claude-desktop) are
 * real frames of the recorded corpora written in FORMATS.md's grammar by make.mjs: the line format is reconstructed.
 */
type Record = { line: number; value: { [key: string]: unknown; hostlog: { [key: string]: unknown } } };

function read(file: string, text = hostLogText(`claude-desktop/${file}`)) {
  const { reads, notes } = readHostLog('claude-desktop', splitNdjson(text), { fileName: file, start: 0 });
  return { reads, notes, records: reads.filter((r): r is Record & HostRead => 'value' in r) };
}

const requests = (records: Record[]) => records.filter((r) => r.value.request !== undefined);
const byId = (records: Record[], id: number, session?: string) =>
  requests(records).filter(
    (r) => (r.value.request as { id: number }).id === id && (session === undefined || r.value.session === session),
  );

function verdict(r: Record): string {
  const parsed = validateEvent(r.value);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const { bucket, kind } = classify(parsed.event, NO_POLICY);
  return `${bucket}/${kind}`;
}

describe('Claude Desktop, mcp-server-NAME.log', () => {
  const { reads, notes, records } = read('mcp-server-tools-server.log');

  it('is detected from its first lines, and no line of it is refused', () => {
    expect(detectFormat(hostLogText('claude-desktop/mcp-server-tools-server.log').split('\n').slice(0, 20))).toBe(
      'claude-desktop',
    );
    expect(reads.filter((r) => 'refused' in r)).toEqual([]);
    expect(records.every((r) => r.value.server === 'tools-server' && r.value.client === 'claude-desktop')).toBe(true);
  });

  it('trap 1: two processes under one name each keep their initialize, and their records say so', () => {
    const first = byId(records, 1).filter((r) => r.line < 13);
    expect(first.map((r) => [r.value.session, r.value.hostlog.answerLine, r.value.hostlog.sharedName])).toEqual([
      ['claude-desktop:tools-server:1', 9, true],
      ['claude-desktop:tools-server:2', 10, true],
    ]);
    expect(notes.join('\n')).toContain('two processes ran under one server name');
  });

  it('trap 2: ids start over after a restart and pair within the new connection', () => {
    const again = byId(records, 1, 'claude-desktop:tools-server:13').filter((r) => r.value.hostlog.sender !== 'server');
    expect(again).toHaveLength(1);
    expect(again[0]?.value.hostlog).toMatchObject({ line: 16, answerLine: 17 });
    expect(again[0]?.value.hostlog.sharedName).toBeUndefined();
  });

  it('trap 3: answers out of order pair by id', () => {
    expect(byId(records, 3)[0]?.value.hostlog).toMatchObject({ line: 21, answerLine: 24 });
    expect(byId(records, 4)[0]?.value.hostlog).toMatchObject({ line: 22, answerLine: 23 });
    expect(verdict(byId(records, 3)[0] as Record)).toBe('ok/ok');
    expect(verdict(byId(records, 4)[0] as Record)).toBe('refusal/invalid_params');
  });

  it('traps 3 and 4: a request the host cancelled ("Request timed out") is a timeout, its late answer kept as late', () => {
    const slow = byId(records, 10)[0] as Record;
    expect(slow.value).toMatchObject({
      timeout: true,
      response: { id: 10, result: { content: [{ text: 'slept 5000 ms' }] } },
    });
    expect(slow.value.hostlog).toMatchObject({ cancelled: 'MCP error -32001: Request timed out', late: true });
    expect(slow.value.latencyMs).toBeGreaterThan(1_500);
    expect(verdict(slow)).toBe('transient/timeout');
  });

  it('trap 5: the sender is read from the frame: the server’s sampling request, refused by the host', () => {
    const sampling = requests(records).find(
      (r) => (r.value.request as { method: string }).method === 'sampling/createMessage',
    );
    expect(sampling?.value.hostlog).toMatchObject({ sender: 'server', line: 41, answerLine: 42 });
    expect(sampling?.value.response).toMatchObject({ error: { code: -32600 } });
    // Its id 1 is the server's own id space: the host's id 1 of the same connection was paired apart.
    expect(byId(records, 1, 'claude-desktop:tools-server:13')).toHaveLength(2);
  });

  it('trap 7: a multi-line metadata block belongs to its message; the frame on its first line is read', () => {
    const error = byId(records, 9)[0] as Record;
    expect(error.value.response).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32601, message: 'Method not found' },
    });
    expect(verdict(error)).toBe('refusal/not_supported');
    const stray = records.filter((r) => r.line >= 35 && r.line <= 38);
    expect(stray).toEqual([]);
  });

  it('stderr lines (no time, any shape) are server events of the server, consecutive ones together, never refused', () => {
    const stderr = records.filter((r) => r.value.hostlog.stderr !== undefined);
    expect(stderr.map((r) => [r.line, r.value.hostlog.stderr, r.value.hostlog.lines ?? 1])).toEqual([
      [3, 'tools-server: stdio ready', 2],
      [14, 'tools-server: stdio ready', 1],
      [43, '2026-12-06 02:30:57,120 - tools-server - WARNING - slow call still running', 4],
    ]);
    expect(stderr.every((r) => verdict(r) === 'unknown/server_event')).toBe(true);
  });

  it('a request open when its connection ends is a timeout; one open where the log ends has no known outcome', () => {
    expect(byId(records, 14)[0]?.value).toMatchObject({ timeout: true, hostlog: { unanswered: expect.any(String) } });
    const cut = hostLogText('claude-desktop/mcp-server-tools-server.log').split('\n').slice(0, 21).join('\n');
    const open = byId(read('mcp-server-tools-server.log', cut).records, 3)[0] as Record;
    expect(open.value.record).toBe('outcome_unknown');
    expect(verdict(open)).toBe('unknown/outcome_unknown');
  });
});

describe('Claude Desktop, mcp.log', () => {
  it('trap 14: a server named like a level is read in the layout the log shows', () => {
    const { reads, records, notes } = read('mcp.log');
    expect(reads.filter((r) => 'refused' in r)).toEqual([]);
    const named = requests(records).map((r) => [r.value.server, (r.value.request as { id: number }).id]);
    expect(named).toEqual([
      ['tools-server', 1],
      ['info', 1],
      ['info', 4],
      ['tools-server', 10],
    ]);
    expect(notes.join('\n')).toContain('6 line(s) had a level in both brackets');
  });

  it('a per-server file of a server named `info` takes its layout from the file name', () => {
    const lines = [
      '2026-12-06T01:30:53.250Z [info] [info] Message from client: {"jsonrpc":"2.0","id":0,"method":"ping"} { metadata: undefined }',
      '2026-12-06T01:30:53.260Z [info] [info] Message from server: {"jsonrpc":"2.0","id":0,"result":{}} { metadata: undefined }',
    ].join('\n');
    const { records } = read('mcp-server-info.log', lines);
    expect(records.map((r) => [r.value.server, verdict(r)])).toEqual([['info', 'ok/ok']]);
  });

  it('a bare multi-line object after a message is one event; the cancelled call a timeout', () => {
    const { records } = read('mcp.log');
    const block = records.find((r) => r.value.hostlog.text === 'Request timed out {');
    expect(block?.value.hostlog).toMatchObject({ level: 'error', lines: 4 });
    expect(byId(records, 10)[0]?.value).toMatchObject({ timeout: true, hostlog: { cancelled: expect.any(String) } });
  });

  it('trap 11: the 2024 lines name their server in lifecycle text only; frames belong to the server last named', () => {
    const { records } = read('mcp-2024.log');
    expect(new Set(records.map((r) => r.value.server))).toEqual(new Set(['tools-server']));
    expect(requests(records).map((r) => [(r.value.request as { id: number }).id, verdict(r)])).toEqual([
      [1, 'ok/ok'],
      [9, 'refusal/not_supported'],
      [13, 'transient/timeout'],
    ]);
  });

  it('the 2026 short form without a frame still gives the method and id', () => {
    const lines = '2026-08-01T10:00:00.000Z [x] [info] Message from client: method="initialize" id=0 params';
    const { records } = read('mcp-server-x.log', lines);
    expect(records[0]?.value).toMatchObject({ request: { method: 'initialize', id: 0 }, record: 'outcome_unknown' });
  });
});

describe('bounds', () => {
  it('a metadata block past the bound keeps its first lines and counts the rest; a long line is refused by number', () => {
    const head = '2026-12-06T01:30:56.367Z [s] [error] Server error { metadata: {';
    const block = Array.from({ length: 1_000 }, (_, i) => `  key${i}: 'value',`);
    const long = `2026-12-06T01:30:57.000Z [s] [info] ${'x'.repeat(4 * 1024 * 1024 + 1)}`;
    const lines = [head, ...block, '} } %o', long, '2026-12-06T01:30:58.000Z [s] [info] after'];
    const { reads } = read('mcp-server-s.log', lines.join('\n'));
    expect(reads.map((r) => ('refused' in r ? r.refused.code : (r.value.hostlog as { text: string }).text))).toEqual([
      'Server error { metadata: {',
      'line_too_long',
      'after',
    ]);
    expect(reads[0]).toMatchObject({ value: { hostlog: { lines: 401, cutLines: 601 } } });
  });
});
