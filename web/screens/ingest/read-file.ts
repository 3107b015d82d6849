import { firstLines, HEAD_LINES, isGzip } from './first-lines.ts';

/** How much text detection reads: enough for HEAD_LINES of any access log, without reading a large file whole. */
const HEAD_CHARS = 64 * 1024;

/** A file the browser could not read as text: retrying will not help, another file might. */
export class UnreadableFile extends Error {}

export interface FileHead {
  /** The first lines with content (see firstLines). */
  lines: string[];
  /** Compressed with gzip: decompressed in the browser, for detection and for sending. */
  gzip: boolean;
}

function gunzip(file: Blob): ReadableStream<Uint8Array> {
  return file.stream().pipeThrough(new DecompressionStream('gzip'));
}

function notGzip(file: { name: string }): UnreadableFile {
  return new UnreadableFile(`${file.name} starts as gzip but could not be decompressed (truncated or damaged)`);
}

/** The first lines of a file, decompressed when it is gzip. */
export async function readHead(file: File): Promise<FileHead> {
  const head = new Uint8Array(await file.slice(0, HEAD_CHARS).arrayBuffer());
  if (!isGzip(head)) {
    const text = new TextDecoder().decode(head);
    return { lines: firstLines(text, HEAD_LINES, file.size <= HEAD_CHARS), gzip: false };
  }
  const reader = gunzip(file).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let complete = false;
  try {
    while (text.length < HEAD_CHARS) {
      const chunk = await reader.read();
      if (chunk.done) {
        complete = true;
        break;
      }
      text += decoder.decode(chunk.value, { stream: true });
    }
  } catch {
    // A damaged stream can still have given whole lines before the damage: detection may use them, sending fails.
    if (text === '') throw notGzip(file);
  } finally {
    void reader.cancel().catch(() => {});
  }
  return { lines: firstLines(text, HEAD_LINES, complete), gzip: true };
}

/** The whole text of a file, decompressed when it is gzip. */
export async function readText(file: File, gzip: boolean): Promise<string> {
  if (!gzip) return file.text();
  try {
    return await new Response(gunzip(file)).text();
  } catch {
    throw notGzip(file);
  }
}
