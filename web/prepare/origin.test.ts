import { describe, expect, it } from 'vitest';
import { originText } from './origin.ts';

describe('originText', () => {
  it('says the format and the lines a host log record came from, and what its reader noted', () => {
    const text = originText({
      format: 'claude-desktop',
      label: 'Claude Desktop log',
      note: null,
      facts: { line: 39, answerLine: 47, cancelled: 'MCP error -32001: Request timed out', late: true },
    });
    expect(text.read).toBe('Claude Desktop log, line 39 (answer on line 47)');
    expect(text.details).toEqual([
      'The host cancelled it ("MCP error -32001: Request timed out"): a timeout.',
      'An answer came after the host gave up; it is kept, as late.',
    ]);
  });

  it('says a frame the log cut, what the cut took, and whose connection it was', () => {
    const text = originText({
      format: 'librechat',
      label: 'LibreChat log',
      note: null,
      facts: { line: 19, truncated: true, idCut: true, user: '6750a1b2c3d4e5f6a7b8c9d0' },
    });
    expect(text.details).toEqual([
      'The log cut this frame ("... [truncated]"): what is shown is what the cut left readable.',
      'The cut took its id: no later line can name it.',
      'A connection of user 6750a1b2c3d4e5f6a7b8c9d0.',
    ]);
  });

  it('names a native record by its format alone, and a server event by what it said', () => {
    expect(originText({ format: null, label: 'native NDJSON', note: null, facts: null })).toEqual({
      read: 'native NDJSON',
      details: [],
    });
    const exit = originText({
      format: 'supergateway',
      label: 'supergateway log',
      note: null,
      facts: { line: 9, exit: { code: null, signal: 'SIGTERM' } },
    });
    expect(exit.details).toEqual(['The process exited (SIGTERM).']);
  });

  it('says what became of a connection attempt a lifecycle log shows, and on which line', () => {
    const text = originText({
      format: 'claude-code',
      label: 'Claude Code log',
      note: null,
      facts: {
        line: 4,
        answerLine: 6,
        connection: 'not connected',
        outcome: 'Connection failed: process exited with code 1',
      },
    });
    expect(text.read).toBe('Claude Code log, line 4 (outcome on line 6)');
    expect(text.details.slice(0, 2)).toEqual([
      'The host started the server and it did not connect: a timeout, for the retry budget.',
      'What became of it, as the log says: Connection failed: process exited with code 1',
    ]);
  });
});
