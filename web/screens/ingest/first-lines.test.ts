import { describe, expect, it } from 'vitest';
import { firstLines, isGzip } from './first-lines.ts';

describe('firstLines', () => {
  it('gives the first lines with content, without their line ends', () => {
    expect(firstLines('a\r\n\n  \nb\nc\n', 10, true)).toEqual(['a', 'b', 'c']);
    expect(firstLines('a\nb\nc\nd', 2, true)).toEqual(['a', 'b']);
    expect(firstLines('', 5, true)).toEqual([]);
  });

  it('leaves out the last line of a prefix, which may be cut mid-line', () => {
    expect(firstLines('{"a":1}\n{"b":', 5, false)).toEqual(['{"a":1}']);
    expect(firstLines('{"a":1}\n', 5, false)).toEqual(['{"a":1}']);
    expect(firstLines('{"a":1}', 5, false)).toEqual([]);
    expect(firstLines('{"a":1}', 5, true)).toEqual(['{"a":1}']);
  });

  it('drops a byte-order mark, which would hide a JSON line from detection', () => {
    expect(firstLines('\ufeff{"a":1}\n', 5, true)).toEqual(['{"a":1}']);
  });
});

describe('isGzip', () => {
  it('reads the magic number, not the name', () => {
    expect(isGzip(new Uint8Array([0x1f, 0x8b, 8, 0]))).toBe(true);
    expect(isGzip(new TextEncoder().encode('{"ts":1}'))).toBe(false);
    expect(isGzip(new Uint8Array([0x1f]))).toBe(false);
    expect(isGzip(new Uint8Array())).toBe(false);
  });
});
