/**
 * Warnings of stored lines (a member dropped, a server guessed from the host), folded for display: an access log
 * without a server mapping warns on every line, and a thousand identical rows would hide the one that differs.
 */

export interface WarningRow {
  file: string;
  /** The file line number. */
  line: number;
  field: string;
  message: string;
}

export interface WarningGroup {
  key: string;
  file: string;
  field: string;
  message: string;
  count: number;
  /** The first few file lines with this warning, in order. */
  lines: number[];
}

/** The rows with the same file, field and message as one group; the largest first, then by first appearance. */
export function groupWarnings(rows: readonly WarningRow[], linesPerGroup = 5): WarningGroup[] {
  const groups = new Map<string, WarningGroup>();
  for (const row of rows) {
    const key = JSON.stringify([row.file, row.field, row.message]);
    let group = groups.get(key);
    if (group === undefined) {
      group = { key, file: row.file, field: row.field, message: row.message, count: 0, lines: [] };
      groups.set(key, group);
    }
    group.count++;
    if (group.lines.length < linesPerGroup) group.lines.push(row.line);
  }
  // Map order is insertion order and Array.prototype.sort is stable: ties keep their first appearance.
  return [...groups.values()].sort((a, b) => b.count - a.count);
}
