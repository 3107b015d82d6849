/**
 * Splitting an ingest body into numbered items. NDJSON lines keep their 1-based line numbers, blank lines
 * included in the count so that a reported line number is the one an editor shows. A JSON array's elements are
 * numbered by position.
 */
export interface BatchLine {
  line: number;
  text: string;
}

export function splitNdjson(text: string): BatchLine[] {
  const lines: BatchLine[] = [];
  // A byte-order mark is an encoder's habit, not part of the first event.
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let number = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    number++;
    let lineEnd = end;
    if (lineEnd > start && text.charCodeAt(lineEnd - 1) === 13) lineEnd--;
    if (lineEnd > start) {
      const line = text.slice(start, lineEnd);
      if (line.trim().length > 0) lines.push({ line: number, text: line });
    }
    start = end + 1;
  }
  return lines;
}
