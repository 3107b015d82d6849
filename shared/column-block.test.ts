import { brotliCompressSync, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  type Cell,
  type ColumnSpec,
  type Compression,
  inflatedSections,
  packColumns,
  unpackColumns,
} from './column-block.ts';

const COLUMNS: ColumnSpec[] = [
  { name: 'seq', kind: 'delta' },
  { name: 'ts', kind: 'delta' },
  { name: 'server', kind: 'dict' },
  { name: 'status', kind: 'dict' },
  { name: 'latency', kind: 'dict' },
  { name: 'identity', kind: 'dict' },
  { name: 'event_id', kind: 'text' },
  { name: 'line', kind: 'text' },
];

/** The rows as unpackColumns gives them back, one object a row. */
function rowsOf(block: Buffer, only?: readonly string[]): Record<string, Cell>[] {
  const { columns, rowCount, values } = unpackColumns(block, only);
  return Array.from({ length: rowCount }, (_, r) =>
    Object.fromEntries(columns.map(({ name }, c) => [name, values[c]?.[r] ?? null])),
  );
}

const digest = (n: number) => new Uint8Array(16).fill(n);

const ROWS: Record<string, Cell>[] = [
  {
    seq: 7,
    ts: 1_793_577_600_000,
    server: 'server-1',
    status: 200,
    latency: 20.5,
    identity: digest(1),
    event_id: 'bench-1-7',
    line: '{"id":"bench-1-7"}',
  },
  {
    seq: 3,
    ts: 1_793_577_599_000,
    server: 'server-1',
    status: null,
    latency: -0,
    identity: null,
    event_id: 'bench-1-3',
    line: null,
  },
  {
    seq: 90,
    ts: 1_793_577_600_001,
    server: 'server-1',
    status: 200,
    latency: Number.NaN,
    identity: digest(1),
    event_id: '',
    line: '',
  },
  {
    seq: -(2 ** 51),
    ts: 2 ** 51,
    server: 'ünï/σέρβερ',
    status: '200',
    latency: 1e-300,
    identity: digest(2),
    event_id: 'ünï 🚦',
    line: 'ünï 🚥',
  },
];

describe('column blocks', () => {
  for (const compression of ['deflate', 'brotli'] as Compression[]) {
    it(`gives back every row as it was, with ${compression}`, async () => {
      expect(rowsOf(await packColumns(COLUMNS, ROWS, compression))).toEqual(ROWS);
    });
  }

  it('keeps a number apart from its text, -0 apart from 0, and bytes as bytes', async () => {
    const rows = rowsOf(await packColumns(COLUMNS, ROWS, 'deflate'));
    expect(rows[0]?.status).toBe(200);
    expect(rows[3]?.status).toBe('200');
    expect(Object.is(rows[1]?.latency, -0)).toBe(true);
    expect(rows[0]?.identity).toBeInstanceOf(Uint8Array);
  });

  it('reads only the columns asked for', async () => {
    const block = await packColumns(COLUMNS, ROWS, 'brotli');
    expect(rowsOf(block, ['line', 'ts', 'absent'])).toEqual(ROWS.map(({ ts, line }) => ({ ts, line })));
  });

  it('reads only the rows asked for, each as the whole block holds it, and refuses rows it does not hold', async () => {
    const rows: Record<string, Cell>[] = Array.from({ length: 300 }, (_, i) => ({
      ...(ROWS[i % ROWS.length] as Record<string, Cell>),
      seq: i * (i % 2 === 0 ? 1 : -3),
      line: i % 5 === 0 ? null : `{"id":"row-${i}","ünï":"${'x'.repeat(i % 40)}"}`,
    }));
    const block = await packColumns(COLUMNS, rows, 'brotli');
    const picked = [0, 1, 2, 97, 150, 151, 299];
    const { rowCount, columns, values } = unpackColumns(block, ['seq', 'identity', 'line'], picked);
    expect(rowCount).toBe(picked.length);
    const read = picked.map((_, i) => Object.fromEntries(columns.map(({ name }, c) => [name, values[c]?.[i]])));
    expect(read).toEqual(picked.map((r) => ({ seq: rows[r]?.seq, identity: rows[r]?.identity, line: rows[r]?.line })));
    expect(unpackColumns(block, undefined, []).values.every((column) => column.length === 0)).toBe(true);
    for (const wrong of [[300], [-1], [2, 1], [4, 4], [0.5]]) {
      expect(() => unpackColumns(block, undefined, wrong), String(wrong)).toThrow(/ascend/);
    }
  });

  it("inflates only the text groups that hold a row asked for, and each section once for the block's reads", async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ seq: i, line: `{"id":"row-${i}"}` }));
    const block = await packColumns(COLUMNS, rows, 'brotli');
    inflatedSections.clear();
    const picked = [0, 2999];
    expect(unpackColumns(block, ['line', 'seq'], picked).values).toEqual([
      picked.map((r) => rows[r]?.seq),
      picked.map((r) => rows[r]?.line),
    ]);
    expect(Object.fromEntries(inflatedSections)).toEqual({ line: 2, seq: 1 });
    expect(rowsOf(block, ['line', 'seq'])).toEqual(rows);
    expect(Object.fromEntries(inflatedSections)).toEqual({ line: 3, seq: 1 });
  });

  it('reads a block written before text columns came in groups', () => {
    // Format 2 (brotli, whole sections): two rows, a text column `t` holding "ab", then "ac" after the "a" it shares.
    const texts = brotliCompressSync(Buffer.of(1, 2, 0x61, 0x62, 2, 1, 0x63, 0));
    const block = Buffer.concat([Buffer.of(2, 3, 1, 2, 1, 0x74, texts.byteLength), texts]);
    expect(unpackColumns(block).values).toEqual([['ab', 'ac', null]]);
    expect(unpackColumns(block, undefined, [1]).values).toEqual([['ac']]);
  });

  it('reads a column the block does not hold as missing, and a missing cell as null', async () => {
    const block = await packColumns(COLUMNS.slice(0, 2), [{ seq: 1 }], 'brotli');
    expect(rowsOf(block)).toEqual([{ seq: 1, ts: null }]);
  });

  it('holds no rows', async () => {
    for (const compression of ['deflate', 'brotli'] as Compression[]) {
      const { columns, rowCount, values } = unpackColumns(await packColumns(COLUMNS, [], compression));
      expect(columns).toEqual(COLUMNS);
      expect(rowCount).toBe(0);
      expect(values.every((column) => column.length === 0)).toBe(true);
    }
  });

  it('holds a huge block: 100k rows and a line of 1 MB', async () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => ({
      seq: i,
      ts: 1_793_577_600_000 + i * 9,
      server: `server-${i % 3}`,
      status: i % 7 === 0 ? 503 : 200,
      latency: i % 50,
      identity: digest(i % 200),
      event_id: `bench-1-${i}`,
      line: i === 500 ? 'x'.repeat(2 ** 20) : `{"id":"bench-1-${i}"}`,
    }));
    const block = await packColumns(COLUMNS, rows, 'brotli');
    expect(block.byteLength).toBeLessThan(2 ** 20);
    expect(rowsOf(block)).toEqual(rows);
  });

  it('refuses what it could not give back', async () => {
    await expect(packColumns(COLUMNS, [{ line: 'a\uD800' }], 'deflate')).rejects.toThrow(/well-formed/);
    await expect(packColumns(COLUMNS, [{ server: '\uDC00' }], 'deflate')).rejects.toThrow(/well-formed/);
    await expect(packColumns(COLUMNS, [{ ts: 2 ** 52 }], 'deflate')).rejects.toThrow(/2\^51/);
    await expect(packColumns(COLUMNS, [{ ts: 1.5 }], 'deflate')).rejects.toThrow(/integer/);
    await expect(packColumns(COLUMNS, [{ line: 5 }], 'deflate')).rejects.toThrow(/no text/);
  });

  it('refuses a damaged block rather than read it wrong', async () => {
    const block = await packColumns(COLUMNS, ROWS, 'deflate');
    expect(() => unpackColumns(Buffer.concat([Buffer.of(9), block.subarray(1)]))).toThrow(/format/);
    expect(() => unpackColumns(block.subarray(0, block.byteLength - 4))).toThrow(/ends early/);
    // Two rows, one delta column `a` whose values hold one.
    const short = deflateRawSync(Buffer.of(0));
    expect(() => unpackColumns(Buffer.concat([Buffer.of(1, 2, 1, 0, 1, 0x61, short.byteLength), short]))).toThrow(
      /ends early/,
    );
  });
});
