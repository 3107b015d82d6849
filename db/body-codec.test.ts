import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody } from './body-codec.ts';

const LINE = JSON.stringify({
  id: 'e-1 ü',
  ts: 1_795_982_118_158,
  source: 'client',
  client: 'agent-7',
  server: 'release-notes',
  http: { method: 'POST', path: '/mcp', status: 200 },
  request: { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'search', arguments: { q: 'x' } } },
  response: { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'ok' }] } },
});

describe('body codec', () => {
  it('gives back the line byte for byte, in a third of its size', () => {
    const stored = encodeBody(LINE);
    expect(decodeBody(stored)).toBe(LINE);
    expect(stored.length).toBeLessThan(Buffer.byteLength(LINE) / 3);
  });

  it('reads a body as the writer thread hands it back: a Uint8Array over part of a larger buffer', () => {
    const stored = encodeBody(LINE);
    const pool = new Uint8Array(stored.length + 7);
    pool.set(stored, 7);
    expect(decodeBody(pool.subarray(7))).toBe(LINE);
  });

  it('reads the lines stored before compression: SQLite text, PostgreSQL UTF-8 bytes', () => {
    expect(decodeBody(LINE)).toBe(LINE);
    expect(decodeBody(Buffer.from(LINE, 'utf8'))).toBe(LINE);
  });
});
