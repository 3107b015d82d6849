import { describe, expect, it } from 'vitest';
import { splitNdjson } from '../../../shared/batch.ts';
import { fileLine, splitBatches, utf8Length } from './batches.ts';

describe('utf8Length', () => {
  it('counts bytes as TextEncoder does', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a\ud800b', '{"q":"naïve 😀"}']) {
      expect(utf8Length(text), text).toBe(new TextEncoder().encode(text).length);
    }
  });
});

describe('splitBatches', () => {
  it('keeps a small file in one batch with its blank lines', () => {
    const batches = splitBatches('{"a":1}\n\n{"b":2}\n');
    expect(batches).toEqual([{ firstLine: 1, lines: 3, bytes: 16, body: '{"a":1}\n\n{"b":2}' }]);
  });

  it('cuts at the line limit', () => {
    const text = Array.from({ length: 7 }, (_, i) => `{"n":${i}}`).join('\n');
    const batches = splitBatches(text, { maxLines: 3, maxBytes: 1000 });
    expect(batches.map((b) => [b.firstLine, b.lines])).toEqual([
      [1, 3],
      [4, 3],
      [7, 1],
    ]);
  });

  it('cuts at the byte limit, and a line longer than the limit travels alone', () => {
    const batches = splitBatches(['aaaa', 'bbbb', 'c'.repeat(20), 'dd'].join('\n'), { maxLines: 100, maxBytes: 10 });
    expect(batches.map((b) => b.body)).toEqual(['aaaa\nbbbb', 'c'.repeat(20), 'dd']);
    for (const batch of batches) expect(batch.bytes).toBe(utf8Length(batch.body));
  });

  it('leaves out batches of blank lines only, keeping the numbering', () => {
    const batches = splitBatches('a\n\n\n\nb', { maxLines: 2, maxBytes: 100 });
    expect(batches.map((b) => [b.firstLine, b.body])).toEqual([
      [1, 'a\n'],
      [5, 'b'],
    ]);
  });

  it('maps every line the server numbers back to the file line number', () => {
    const text = ['{"n":1}', '', 'bad', '\r', '{"n":5}\r', '', '', '{"n":8}', 'x'].join('\n');
    const expected = splitNdjson(text);
    const mapped = splitBatches(text, { maxLines: 2, maxBytes: 1000 }).flatMap((batch) =>
      splitNdjson(batch.body).map((item) => ({ line: fileLine(batch, item.line), text: item.text })),
    );
    expect(mapped).toEqual(expected);
  });
});
