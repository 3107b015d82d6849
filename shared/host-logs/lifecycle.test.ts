import { describe, expect, it } from 'vitest';
import { hostLogText } from '../../tests/support/corpus.ts';
import { toAnalysisEvent } from '../analysis/from-event.ts';
import { replayGate } from '../analysis/gate.ts';
import { detectStorms } from '../analysis/storms.ts';
import { classify } from '../classify/index.ts';
import { NO_POLICY } from '../classify/types.ts';
import { validateEvent } from '../event.ts';
import { detectFormat } from '../proxy-logs/detect.ts';
import { type HostFormat, readHostLog } from './index.ts';

/**
 * Lifecycle-only logs: lines written in FORMATS.md's grammars for Claude Code and Cursor (reconstructed: neither
 * host was run here, and their logs carry no frames to take from the recorded corpora).
 */
const CLAUDE_CODE = [
  '2026-12-06T01:30:52.750Z [DEBUG] MCP server "files" Starting connection with timeout of 30000ms',
  '2026-12-06T01:30:53.100Z [DEBUG] MCP server "files" Successfully connected to stdio server in 350ms',
  '2026-12-06T01:31:23.100Z [ERROR] MCP server "files" Connection timed out after 30000ms',
  '2026-12-06T01:31:24.000Z [ERROR] MCP server "files" Server stderr: Error: EADDRINUSE',
  '    at Server.listen (node:net:1913:7)',
  '2026-12-06T01:31:24.010Z [ERROR] MCP server "files" Connection failed: process exited with code 1',
];
const CURSOR = [
  '2026-12-06 02:30:52.750 [info] user-files: Handling ListOfferings action',
  '2026-12-06 02:30:52.900 [info] user-files: Found 7 tools',
  '2026-12-06 02:31:10.000 [error] user-files: Client closed',
  '2026-12-06 02:31:10.001 [error] user-files: MCP error -32000: Connection closed',
];

function read(format: HostFormat, lines: string[]) {
  return readHostLog(
    format,
    lines.map((text, i) => ({ line: i + 1, text })),
    { start: 0, timeZone: 'Europe/Berlin' },
  );
}

describe('lifecycle-only logs', () => {
  it('are detected from their first lines, VS Code’s prose not taken for Cursor’s', () => {
    expect(detectFormat(CLAUDE_CODE)).toBe('claude-code');
    expect(detectFormat(CURSOR)).toBe('cursor');
    expect(detectFormat(['2026-12-06 02:31:03.750 [info] Connection state: Error Process exited with code 243'])).toBe(
      'vscode',
    );
  });

  it('Claude Code: each other line a server event of its server, a timeout and an exit code named, no request claimed', () => {
    const { reads, notes } = read('claude-code', CLAUDE_CODE);
    const values = reads.flatMap((r) => ('value' in r ? [r.value] : [])).filter((v) => v.record === 'server_event');
    expect(values).toHaveLength(4);
    expect(values.every((v) => v.server === 'files' && v.client === 'claude-code')).toBe(true);
    expect(values.map((v) => v.hostlog)).toEqual([
      expect.objectContaining({ level: 'debug' }),
      expect.objectContaining({ level: 'error', timedOut: true }),
      expect.objectContaining({ level: 'error', lines: 2 }),
      expect.objectContaining({ exit: { code: 1, signal: null } }),
    ]);
    expect(notes[0]).toContain('lifecycle only');
  });

  it('Cursor: local times read in the zone given, its server id kept', () => {
    const { reads, notes } = read('cursor', CURSOR);
    const values = reads.flatMap((r) => ('value' in r ? [r.value] : []));
    expect(values.map((v) => [v.ts, v.server])).toContainEqual(['2026-12-06T01:30:52.750Z', 'user-files']);
    expect(notes).toContain('local times read in the zone Europe/Berlin');
  });
});

function values(format: HostFormat, lines: string[]) {
  return read(format, lines).reads.flatMap((r) => ('value' in r ? [r.value] : []));
}

function fixture(file: string): string[] {
  return hostLogText(file)
    .split('\n')
    .filter((line) => line !== '');
}

/** Claude Code starting a server that exits at once, six times, 2 s apart, then for good (reconstructed lines). */
const CRASH_LOOP = fixture('claude-code/crash-loop.log');

describe('connection attempts in lifecycle logs (ADR 19)', () => {
  it('Claude Code: each start is one counted attempt with what the log says became of it', () => {
    const all = values('claude-code', CLAUDE_CODE);
    const attempts = all.filter((v) => v.record !== 'server_event');
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      record: 'connection',
      latencyMs: 350,
      hostlog: { line: 1, answerLine: 2, connection: 'connected' },
    });
    expect(attempts[0]).not.toHaveProperty('timeout');
    // Every other line is still a server event of its own; the start line is the attempt.
    expect(all.filter((v) => v.record === 'server_event')).toHaveLength(4);
  });

  it('a connected attempt is a success; a start the log says nothing more of is an unknown outcome', () => {
    // The first failed attempt, the clean one, then a start the log ends on.
    const all = values('claude-code', [...CRASH_LOOP.slice(0, 3), ...CRASH_LOOP.slice(-2), CRASH_LOOP[0] as string]);
    expect(all.filter((v) => v.record !== 'server_event').map((v) => [v.record, v.timeout ?? false])).toEqual([
      ['connection', true],
      ['connection', false],
      ['outcome_unknown', false],
    ]);
    const [failed, connected] = all.filter((v) => v.record === 'connection');
    const verdict = (value: unknown) => {
      const parsed = validateEvent(value);
      if (!parsed.ok) throw new Error(parsed.error.message);
      const { bucket, kind, rule } = classify(parsed.event, NO_POLICY);
      return [bucket, kind, rule];
    };
    expect(verdict(failed)).toEqual(['transient', 'timeout', 'record.connection']);
    expect(verdict(connected)).toEqual(['ok', 'ok', 'record.connection']);
  });

  it('a server restarted past the retry budget is a reconnect loop of its host', () => {
    const events = values('claude-code', CRASH_LOOP).map((value, seq) => {
      const parsed = validateEvent(value);
      if (!parsed.ok) throw new Error(parsed.error.message);
      const classification = classify(parsed.event, NO_POLICY);
      const counted = parsed.event.record !== 'server_event';
      return toAnalysisEvent(parsed.event, classification, { id: String(value.id), seq, identity: null, counted });
    });
    const found = detectStorms(events, replayGate(events));
    expect(found).toHaveLength(1);
    const [loop] = found;
    // 6 failed starts: the first and its 3 retries are needed, every start after them avoidable (the budget does not
    // refill, DOMAIN.md section 6), the lucky clean start included.
    expect(loop).toMatchObject({ kind: 'reconnect_loop', client: 'claude-code', server: 'tools-server', attempts: 7 });
    expect(loop?.avoidable).toBe(3);
    expect(loop?.title).toBe(
      'claude-code kept reconnecting to a failing connection of tools-server: 7 connection attempts (server start ×7), 3 avoidable',
    );
  });

  it('Cursor shows no start of a connection: its failures stay server events, no attempt is counted', () => {
    const all = values('cursor', CURSOR);
    expect(all.every((v) => v.record === 'server_event')).toBe(true);
    expect(read('cursor', CURSOR).notes).toContain('it logs no start of a connection: no connection is counted');
  });
});

describe('Claude Code’s 2025 JSON array (mcp-logs-NAME/, reconstructed around the same session)', () => {
  const ARRAY = fixture('claude-code/crash-loop.2025.json');

  it('is detected from its first lines, and reads as the same session as the debug log', () => {
    expect(detectFormat(ARRAY.slice(0, 5))).toBe('claude-code');
    const strip = (v: Record<string, unknown>) => [v.ts, v.record, v.timeout, v.latencyMs, v.server];
    const fromArray = read('claude-code', ARRAY).reads.flatMap((r) => ('value' in r ? [r.value] : []));
    const fromLog = values('claude-code', CRASH_LOOP);
    expect(fromArray.map(strip)).toEqual(fromLog.map((v) => [...strip(v).slice(0, 4), 'unknown']));
  });

  it('takes its server from the mcp-logs-NAME folder of its path', () => {
    const { reads } = readHostLog(
      'claude-code',
      ARRAY.map((text, i) => ({ line: i + 1, text })),
      { fileName: '/home/me/.cache/claude-cli-nodejs/-srv-rec/mcp-logs-tools-server/2026-12-06.txt' },
    );
    const servers = new Set(reads.flatMap((r) => ('value' in r ? [r.value.server] : [])));
    expect(servers).toEqual(new Set(['tools-server']));
  });
});

describe('Zed (Zed.log, reconstructed lines around a recorded server start: tests/fixtures/hostlogs/zed)', () => {
  it('is detected in both its line formats', () => {
    expect(detectFormat(fixture('zed/Zed.2025.log'))).toBe('zed');
    expect(detectFormat(fixture('zed/Zed.log'))).toBe('zed');
  });

  it.each(['zed/Zed.2025.log', 'zed/Zed.log'])(
    '%s: the start an attempt of unknown outcome, the stderr line the started server’s, times with their offset',
    (file) => {
      const all = values('zed', fixture(file));
      expect(all.map((v) => [v.record, v.server, v.client])).toEqual([
        ['outcome_unknown', 'tools-server', 'zed'],
        ['server_event', 'tools-server', 'zed'],
      ]);
      expect(String(all[0]?.ts)).toMatch(/^2026-12-06T01:31:08/);
      expect(all[1]?.hostlog).toMatchObject({ text: 'context server stderr: tools-server: stdio ready' });
    },
  );

  it('leaves out the editor’s other lines (counted), and gives a nameless line to nobody when two servers run', () => {
    // The first line keeps Zed's grammar with a message about no context server.
    const lines = [
      '2026-12-06T02:31:00.000+01:00 [INFO] opened 3 worktrees',
      ...fixture('zed/Zed.2025.log'),
      '2026-12-06T02:31:20.000+01:00 [INFO] starting context server notes',
      '2026-12-06T02:31:21.000+01:00 [ERROR] context server stderr: Traceback (most recent call last):',
    ];
    const { reads, notes } = read('zed', lines);
    const all = reads.flatMap((r) => ('value' in r ? [r.value] : []));
    expect(all.map((v) => v.server)).toEqual(['tools-server', 'tools-server', 'notes', 'unknown']);
    expect(all.filter((v) => v.record === 'outcome_unknown')).toHaveLength(2);
    expect(notes).toContain('1 lines about other parts of zed left out');
  });
});
