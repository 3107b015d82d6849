/**
 * The first lines of a file, for format detection: read from a prefix of the file (or of its decompressed text),
 * so a large log is never read whole before the operator has said what it is.
 */

/** How many lines with content detection reads. */
export const HEAD_LINES = 20;

/**
 * The first `max` lines of `text` that hold something, without their line ends. When `complete` is false, `text`
 * is a prefix that may stop inside a line: its last line is left out rather than guessed from half its bytes.
 */
export function firstLines(text: string, max: number, complete: boolean): string[] {
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  const lines = body.split('\n');
  if (!complete) lines.pop();
  const kept: string[] = [];
  for (const line of lines) {
    if (kept.length >= max) break;
    const bare = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (bare.trim() !== '') kept.push(bare);
  }
  return kept;
}

/** gzip's magic number: the bytes, not the file name, say whether a file is compressed (`access.log.1` may be). */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}
