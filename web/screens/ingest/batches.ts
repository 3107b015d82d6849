/**
 * Cutting an NDJSON file into ingest batches in the browser. Lines are numbered as the server numbers them
 * (1-based, blank lines counted), and a batch is the file's lines K..K+n joined with '\n', so that the server's
 * line 1 of a batch is file line K: a reject's file line is `firstLine + line - 1`.
 */
export interface Batch {
  /** The file line number of the batch's first line. */
  firstLine: number;
  /** How many file lines the batch covers, blank ones included. */
  lines: number;
  /** UTF-8 bytes of the body. */
  bytes: number;
  body: string;
}

export interface BatchLimits {
  maxLines: number;
  maxBytes: number;
}

export const DEFAULT_LIMITS: BatchLimits = { maxLines: 5000, maxBytes: 4 * 1024 * 1024 };

/** The UTF-8 length of a string, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The batches of a file's text, in order. A line longer than `maxBytes` travels alone (the server then says
 * whether it takes it); batches of blank lines only are left out, as they carry nothing.
 */
export function splitBatches(text: string, limits: BatchLimits = DEFAULT_LIMITS): Batch[] {
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start another.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const batches: Batch[] = [];
  let start = 0;
  let bytes = 0;
  let content = false;
  const flush = (end: number) => {
    if (end > start && content) {
      batches.push({ firstLine: start + 1, lines: end - start, bytes, body: lines.slice(start, end).join('\n') });
    }
    start = end;
    bytes = 0;
    content = false;
  };
  for (const [index, line] of lines.entries()) {
    const size = utf8Length(line);
    if (index > start && (index - start >= limits.maxLines || bytes + 1 + size > limits.maxBytes)) flush(index);
    bytes += size + (index > start ? 1 : 0);
    if (!content && line.trim() !== '') content = true;
  }
  flush(lines.length);
  return batches;
}

/** The file line number of a batch-relative line the server reported. */
export function fileLine(batch: Pick<Batch, 'firstLine'>, batchLine: number): number {
  return batch.firstLine + batchLine - 1;
}
