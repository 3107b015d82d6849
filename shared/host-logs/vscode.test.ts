import { describe, expect, it } from 'vitest';
import { hostLogText } from '../../tests/support/corpus.ts';
import { splitNdjson } from '../batch.ts';
import { classify } from '../classify/index.ts';
import { NO_POLICY } from '../classify/types.ts';
import { validateEvent } from '../event.ts';
import { detectFormat } from '../proxy-logs/detect.ts';
import { type HostLogOptions, readHostLog } from './index.ts';

/**
 * VS Code's MCP output channel. The fixtures (tests/fixtures/hostlogs/vscode) are the recorded session's real frames
 * in FORMATS.md's grammar, written by make.mjs in Berlin's local time: the line format is reconstructed.
 */
function read(file: string, options: HostLogOptions = {}) {
  const { reads, notes } = readHostLog('vscode', splitNdjson(hostLogText(`vscode/${file}`)), { start: 0, ...options });
  const records = reads.flatMap((r) => ('value' in r ? [r.value] : []));
  return { reads, notes, records };
}

function verdict(value: Record<string, unknown>): string {
  const parsed = validateEvent(value);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const { bucket, kind } = classify(parsed.event, NO_POLICY);
  return `${bucket}/${kind}`;
}

describe('VS Code, the MCP output channel at debug level', () => {
  it('is detected, every line read, local times read in the zone given and said so', () => {
    expect(detectFormat(hostLogText('vscode/mcp-tools-server.debug.log').split('\n').slice(0, 20))).toBe('vscode');
    const { reads, records, notes } = read('mcp-tools-server.debug.log', { timeZone: 'Europe/Berlin' });
    expect(reads.filter((r) => 'refused' in r)).toEqual([]);
    const initialize = records.find((r) => (r.request as { method?: string } | undefined)?.method === 'initialize');
    // The transcript's own clock: the host sent initialize at 01:30:54.750Z.
    expect(initialize).toMatchObject({ ts: '2026-12-06T01:30:54.750Z', server: 'tools-server', client: 'vscode' });
    expect(notes[0]).toBe('local times read in the zone Europe/Berlin');
  });

  it('another zone moves every time by its offset; none named means this process’s zone, said so', () => {
    const utc = read('mcp-tools-server.debug.log', { timeZone: 'UTC' }).records[0];
    expect(utc?.ts).toBe('2026-12-06T02:30:53.850Z');
    const own = read('mcp-tools-server.debug.log');
    expect(own.notes[0]).toMatch(/^local times read in the zone .+ \(this server’s own\)$/);
  });

  it('pairs frames by id with their outcomes; the cancelled call a timeout; the call the exit cut a timeout', () => {
    const { records } = read('mcp-tools-server.debug.log', { timeZone: 'Europe/Berlin' });
    const outcomes = records
      .filter((r) => r.request !== undefined)
      .map((r) => [(r.request as { id: number }).id, verdict(r)])
      .sort((a, b) => (a[0] as number) - (b[0] as number));
    expect(outcomes).toEqual([
      [1, 'ok/ok'],
      [2, 'ok/ok'],
      [3, 'ok/ok'],
      [4, 'refusal/invalid_params'],
      [5, 'refusal/invalid_params'],
      [6, 'ambiguous/tool_error'],
      [7, 'ambiguous/tool_error'],
      [8, 'refusal/invalid_params'],
      [9, 'refusal/not_supported'],
      [10, 'transient/timeout'],
      [11, 'refusal/invalid_params'],
      [12, 'refusal/invalid_params'],
      [13, 'ok/ok'],
      [14, 'transient/timeout'],
    ]);
    const exit = records.find((r) => (r.hostlog as { exit?: unknown }).exit !== undefined);
    expect(exit?.hostlog).toMatchObject({ exit: { code: 1, signal: null } });
  });
});

describe('VS Code at the default level', () => {
  it('keeps the prose failures as server events, counts no request, and says the channel shows none', () => {
    const { reads, records, notes } = read('mcp-tools-server.info.log', { timeZone: 'Europe/Berlin' });
    expect(reads.filter((r) => 'refused' in r)).toEqual([]);
    expect(records.every((r) => r.record === 'server_event')).toBe(true);
    expect(records.map((r) => (r.hostlog as { exit?: { code: number } }).exit?.code).filter(Boolean)).toEqual([
      243, 243,
    ]);
    expect(new Set(records.map((r) => r.session))).toEqual(new Set(['vscode:tools-server:1', 'vscode:tools-server:2']));
    expect(notes[1]).toContain('logs no frames');
  });
});
