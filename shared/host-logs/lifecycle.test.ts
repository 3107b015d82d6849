import { describe, expect, it } from 'vitest';
import { detectFormat } from '../proxy-logs/detect.ts';
import { readHostLog } from './index.ts';

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

function read(format: 'claude-code' | 'cursor', lines: string[]) {
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

  it('Claude Code: each line a server event of its server, a timeout and an exit code named, no request claimed', () => {
    const { reads, notes } = read('claude-code', CLAUDE_CODE);
    const values = reads.flatMap((r) => ('value' in r ? [r.value] : []));
    expect(values).toHaveLength(5);
    expect(values.every((v) => v.record === 'server_event' && v.server === 'files' && v.client === 'claude-code')).toBe(
      true,
    );
    expect(values.map((v) => v.hostlog)).toEqual([
      expect.objectContaining({ level: 'debug' }),
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
