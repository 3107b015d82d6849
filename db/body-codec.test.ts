import { describe, expect, it } from 'vitest';
import { BLOCK_LINES, blockLines, packLines } from './body-codec.ts';

/** Every line of a block, asked for one by one until one is past its end. */
function decodeBlock(block: Uint8Array | string): string[] {
  const lines: string[] = [];
  for (let i = 0; ; i++) {
    const [found] = blockLines(block, [i]);
    if (found === undefined) return lines;
    lines.push(found);
  }
}

function line(i: number): string {
  return JSON.stringify({
    id: `e-${i} ü`,
    ts: 1_795_982_118_158 + i,
    source: 'client',
    client: 'agent-7',
    server: 'release-notes',
    http: { method: 'POST', path: '/mcp', status: 200 },
    request: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'search', arguments: { q: `x ${i}` } } },
    response: { jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: 'ok' }] } },
  });
}

describe('body blocks', () => {
  it('packs lines in order, BLOCK_LINES a block, and gives them back byte for byte', () => {
    const lines = Array.from({ length: BLOCK_LINES + 3 }, (_, i) => line(i));
    const { blocks, blockOf, lineOf } = packLines(lines);
    expect(blocks).toHaveLength(2);
    expect(blocks.flatMap((block) => decodeBlock(block))).toEqual(lines);
    expect(lines.map((_, i) => decodeBlock(blocks[blockOf[i] as number] as Buffer)[lineOf[i] as number])).toEqual(
      lines,
    );
  });

  it('starts a block wherever the cut key changes, so that a block holds one day', () => {
    const lines = Array.from({ length: 6 }, (_, i) => line(i));
    const { blocks, blockOf, lineOf } = packLines(lines, [20_000, 20_000, 20_001, 20_001, 20_000, 20_000]);
    expect(blocks.map((block) => decodeBlock(block))).toEqual([lines.slice(0, 2), lines.slice(2, 4), lines.slice(4)]);
    expect(blockOf).toEqual([0, 0, 1, 1, 2, 2]);
    expect(lineOf).toEqual([0, 1, 0, 1, 0, 1]);
  });

  it('stores a line in a fraction of its size, even alone', () => {
    const one = line(1);
    const [alone] = packLines([one]).blocks;
    expect(alone?.length).toBeLessThan(Buffer.byteLength(one) / 3);
    const lines = Array.from({ length: BLOCK_LINES }, (_, i) => line(i));
    const total = packLines(lines).blocks.reduce((n, block) => n + block.length, 0);
    expect(total / BLOCK_LINES).toBeLessThan(Buffer.byteLength(one) / 8);
  });

  it('reads a block as the writer thread hands it back: a Uint8Array over part of a larger buffer', () => {
    const [block = Buffer.alloc(0)] = packLines([line(1), line(2)]).blocks;
    const pool = new Uint8Array(block.length + 7);
    pool.set(block, 7);
    expect(decodeBlock(pool.subarray(7))).toEqual([line(1), line(2)]);
  });

  it('reads the lines stored before blocks as blocks of one: SQLite text, PostgreSQL UTF-8 bytes', () => {
    expect(decodeBlock(line(1))).toEqual([line(1)]);
    expect(decodeBlock(Buffer.from(line(1), 'utf8'))).toEqual([line(1)]);
  });

  it('gives the lines asked for alone, in the order asked, none past the end, from any kind of block', () => {
    const lines = ['', line(1), 'ü'.repeat(3), line(2)];
    const [block = Buffer.alloc(0)] = packLines(lines).blocks;
    expect(blockLines(block, [3, 0, 2, 2, 1, 4])).toEqual([lines[3], '', lines[2], lines[2], lines[1], undefined]);
    expect(blockLines(line(1), [1, 0])).toEqual([undefined, line(1)]);
    expect(blockLines(Buffer.from(line(2), 'utf8'), [0])).toEqual([line(2)]);
  });

  it('refuses a line holding a newline, which would split it in two', () => {
    expect(() => packLines(['{"a":\n1}'])).toThrow(/newline/);
  });
});
