import { describe, expect, it } from 'vitest';
import { hostLogText } from '../../tests/support/corpus.ts';
import { splitNdjson } from '../batch.ts';
import { classify } from '../classify/index.ts';
import { NO_POLICY } from '../classify/types.ts';
import { validateEvent } from '../event.ts';
import { detectFormat } from '../proxy-logs/detect.ts';
import { type HostLogOptions, readHostLog } from './index.ts';
import { readableMembers } from './librechat.ts';

/**
 * LibreChat's winston log. The fixtures (tests/fixtures/hostlogs/librechat) are the frames the host sent in the
 * recorded sessions, in FORMATS.md's grammar, written by make.mjs: the line format is reconstructed.
 */
function read(file: string, options: HostLogOptions = {}) {
  const text = hostLogText(`librechat/${file}`);
  const { reads, notes } = readHostLog('librechat', splitNdjson(text), { start: 0, ...options });
  const records = reads.flatMap((r) => ('value' in r ? [r.value] : []));
  return { text, reads, notes, records };
}

function verdict(value: Record<string, unknown>): string {
  const parsed = validateEvent(value);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const { bucket, kind } = classify(parsed.event, NO_POLICY);
  return `${bucket}/${kind}`;
}

const idOf = (r: Record<string, unknown>) => (r.request as { id?: unknown } | undefined)?.id;
const hostlog = (r: Record<string, unknown>) => r.hostlog as Record<string, unknown>;

describe('LibreChat, its winston log', () => {
  it('is detected from its MCP lines, with or without docker compose’s prefix; its other lines vote for nothing', () => {
    for (const file of ['librechat.log', 'librechat.compose.log']) {
      expect(detectFormat(read(file).text.split('\n').slice(0, 20))).toBe('librechat');
    }
    expect(detectFormat(['2026-12-06T01:30:52.750Z info: Server listening on port 3080'])).toBeNull();
  });

  it('reads every line: the requests it sent of unknown outcome, the one it cancelled a timeout, never a success', () => {
    const { reads, records, notes } = read('librechat.log');
    expect(reads.filter((r) => 'refused' in r)).toEqual([]);
    const tools = records.filter((r) => r.server === 'tools-server');
    const outcomes = tools.map((r) => [idOf(r), verdict(r)]).sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(outcomes).toEqual([
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((id) => [id, 'unknown/outcome_unknown']),
      [10, 'transient/timeout'],
      ...[11, 12, 13, 15, 16].map((id) => [id, 'unknown/outcome_unknown']),
    ]);
    expect(tools.find((r) => idOf(r) === 10)?.hostlog).toMatchObject({ cancelled: 'timed out after 1500 ms' });
    expect(records.every((r) => r.client === 'librechat' && r.format === 'librechat')).toBe(true);
    // UTC times as written; the line that is no MCP line left out, and said so.
    expect(tools.find((r) => idOf(r) === 1)?.ts).toBe('2026-12-06T01:30:54.750Z');
    expect(notes[0]).toBe(
      'LibreChat logs only the frames it sends, no answer: 17 request(s) are "outcome unknown", neither success nor ' +
        'failure; 1 it cancelled are timeouts',
    );
    expect(notes).toContain('1 lines of LibreChat not about MCP left out');
    expect(notes.some((n) => n.includes('zone'))).toBe(false);
  });

  it('keeps a cut frame as what it is: a request with its method and id, an answer whose outcome it hides', () => {
    const { records, notes } = read('librechat.log');
    const initialize = records.find((r) => r.server === 'tools-server' && idOf(r) === 1);
    expect(initialize?.request).toEqual({ jsonrpc: '2.0', id: 1, method: 'initialize' });
    expect(initialize?.hostlog).toMatchObject({ truncated: true });
    const answer = records.find((r) => r.server === 'release-desk' && hostlog(r).sender === 'server');
    expect(answer).toMatchObject({ record: 'outcome_unknown' });
    expect(answer?.hostlog).toMatchObject({ truncated: true, answered: true, requestNotLogged: true });
    expect(notes).toContain('3 frame(s) cut by LibreChat ("... [truncated]"): kept with their readable method and id');
  });

  it('keeps a user’s connection apart, the user named on its records; the server from the tag or --server', () => {
    const { records } = read('librechat.log');
    const users = records.filter((r) => r.server === 'release-desk');
    expect(users.map((r) => hostlog(r).user)).toEqual(Array(users.length).fill('6750a1b2c3d4e5f6a7b8c9d0'));
    expect(new Set(users.map((r) => r.session)).size).toBe(1);
    expect(users[0]?.session).not.toBe(records.find((r) => r.server === 'tools-server')?.session);
    // Its id 1 (initialize) and the tools-server's id 1 are different requests.
    expect(users.filter((r) => idOf(r) === 1)).toHaveLength(1);
    const named = read('librechat.log', { server: 'files', client: 'chat-prod' }).records;
    expect(named.every((r) => r.server === 'files' && r.client === 'chat-prod')).toBe(true);
  });

  it('reads docker compose’s local times in the zone given, and says so', () => {
    const { reads, records, notes } = read('librechat.compose.log', { timeZone: 'Europe/Berlin' });
    expect(reads.filter((r) => 'refused' in r)).toEqual([]);
    // The transcript's own clock: the host sent initialize at 01:30:05.903Z; the line keeps whole seconds.
    expect(records.find((r) => idOf(r) === 1)?.ts).toBe('2026-12-06T01:30:05.000Z');
    expect(records.filter((r) => r.request !== undefined)).toHaveLength(16);
    expect(notes).toContain('local times read in the zone Europe/Berlin');
    expect(read('librechat.compose.log', { timeZone: 'UTC' }).records[0]?.ts).toBe('2026-12-06T02:30:05.000Z');
  });

  it('starts a connection again where LibreChat sends initialize again; its open requests stay unknown', () => {
    const one = read('librechat.log')
      .text.split('\n')
      .filter((l) => l.includes('[MCP][tools-server]'));
    const lines = [...one, ...one].map((text, i) => ({ line: i + 1, text }));
    const records = readHostLog('librechat', lines, { start: 0 }).reads.flatMap((r) => ('value' in r ? [r.value] : []));
    expect(new Set(records.map((r) => r.session)).size).toBe(2);
    expect(records.filter((r) => r.timeout === true)).toHaveLength(2);
  });
});

describe('LibreChat’s cut frames and tags', () => {
  // The official SDK LibreChat uses writes a request's `id` after its params: a cut takes it.
  const SDK_ORDER =
    '{"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello","id":7}},"jsonrpc":"2.0","id":3}';

  it('reads the method and id a cut left whole, never a nested id or a cut value', () => {
    expect(readableMembers(SDK_ORDER.slice(0, 60))).toEqual({ method: 'tools/call' });
    expect(readableMembers(SDK_ORDER.slice(0, -2))).toEqual({ method: 'tools/call' });
    expect(readableMembers(SDK_ORDER)).toEqual({ method: 'tools/call', id: 3 });
    expect(readableMembers('{"jsonrpc":"2.0","id":"a\\"b","result":{"method":"x"')).toEqual({ id: 'a"b' });
  });

  it('a cut request without its id is of unknown outcome; the tool tag kept; a frame not JSON a server event', () => {
    const lines = [
      `api  | 2026-12-06T01:30:55.385Z debug: [MCP][tools-server][echo] Transport sending: ${SDK_ORDER.slice(0, 60)}... [truncated]`,
      '2026-12-06T01:30:55.400Z debug: [MCP][tools-server][echo] Transport sending: {"jsonrpc":"2.0","id":',
      '2026-12-06T01:30:55.401Z error: [MCP][tools-server] Transport sending failed',
      '    at Transport.send (stack line)',
    ].map((text, i) => ({ line: i + 1, text }));
    const records = readHostLog('librechat', lines, { start: 0 }).reads.flatMap((r) => ('value' in r ? [r.value] : []));
    expect(records[0]).toMatchObject({
      record: 'outcome_unknown',
      request: { jsonrpc: '2.0', method: 'tools/call' },
      hostlog: { truncated: true, idCut: true },
    });
    expect(records[1]).toMatchObject({ record: 'server_event' });
    expect(records[2]).toMatchObject({ record: 'server_event', hostlog: { level: 'error', lines: 2 } });
    expect(records.every((r) => r.server === 'tools-server')).toBe(true);
  });
});
