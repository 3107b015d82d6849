import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readHead, readText, UnreadableFile } from './read-file.ts';

// Node has File, Blob and DecompressionStream as the browser does: the same code runs here on the same bytes.
const LINE = '{"msec":"1796179362.366","request_method":"POST","request_uri":"/mcp","status":200}';
const text = (lines: number) => `${Array.from({ length: lines }, () => LINE).join('\n')}\n`;

describe('readHead and readText', () => {
  it('read a plain file', async () => {
    const file = new File([text(3)], 'access.log');
    expect(await readHead(file)).toEqual({ lines: [LINE, LINE, LINE], gzip: false });
    expect(await readText(file, false)).toBe(text(3));
  });

  it('decompress a gzip file whatever its name, for the first lines and for the whole text', async () => {
    const file = new File([gzipSync(text(5000))], 'access.log.1');
    const head = await readHead(file);
    expect(head.gzip).toBe(true);
    expect(head.lines).toHaveLength(20);
    expect(head.lines.every((line) => line === LINE)).toBe(true);
    expect(await readText(file, true)).toBe(text(5000));
  });

  it('read only a prefix of a large plain file, without its cut last line', async () => {
    const file = new File([text(5000)], 'big.log');
    const head = await readHead(file);
    expect(head.lines).toHaveLength(20);
    expect(head.lines.every((line) => line === LINE)).toBe(true);
  });

  it('say so when a file starts as gzip but is damaged', async () => {
    const whole = gzipSync(text(50));
    const damaged = new File([whole.subarray(0, 10)], 'access.log.gz');
    await expect(readHead(damaged)).rejects.toBeInstanceOf(UnreadableFile);
    await expect(readText(new File([whole.subarray(0, whole.length - 8)], 'cut.gz'), true)).rejects.toBeInstanceOf(
      UnreadableFile,
    );
  });
});
