/**
 * Plain aligned text for a terminal: the CLI's summaries. No colours and no box drawing, so that a summary pasted
 * into an issue or piped through `less` or `grep` reads the same.
 */

/** A column: its heading, and whether its values are numbers (right-aligned) or text (left-aligned). */
export interface Column {
  heading: string;
  numeric?: boolean;
}

/**
 * Rows under their headings, each column as wide as its widest cell, two spaces apart, indented by two. The last
 * column is not padded, so a long last cell (a list of paths) runs on without pushing the others.
 */
export function table(columns: readonly Column[], rows: readonly (readonly string[])[]): string[] {
  const widths = columns.map((column, i) => Math.max(column.heading.length, ...rows.map((row) => width(row[i]))));
  const line = (cells: readonly string[]) =>
    `  ${columns
      .map((column, i) => {
        const cell = cells[i] ?? '';
        if (i === columns.length - 1 && !column.numeric) return cell;
        const pad = ' '.repeat(Math.max(0, (widths[i] as number) - width(cell)));
        return column.numeric ? pad + cell : cell + pad;
      })
      .join('  ')}`.trimEnd();
  return [line(columns.map((c) => c.heading)), ...rows.map(line)];
}

/** How many rows a summary's list shows before it says how many more `--json` holds. */
export const LISTED = 10;

/** `(the first 10 of 42; --json lists all)` after a list's title, when the list is cut. */
export function more(total: number): string {
  return total > LISTED ? ` (the first ${LISTED} of ${count(total)}; --json lists all)` : '';
}

/** A count with thousands separators: 12,000. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** A share as a percentage with one decimal, or a dash where there is nothing to divide. */
export function percent(share: number | null | undefined): string {
  return share === null || share === undefined || !Number.isFinite(share) ? '-' : `${(share * 100).toFixed(1)}%`;
}

/** `n thing` or `n things`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** UTC to the second, as the logs' own times read: 2026-12-02 02:42:42. */
export function utc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * How many terminal columns a cell takes, so that names from logs in any script line up: East Asian wide and
 * full-width characters and emoji take two, combining marks none, everything else one.
 */
function width(text: string | undefined): number {
  let columns = 0;
  for (const char of text ?? '') {
    const code = char.codePointAt(0) as number;
    if (ZERO_WIDTH.test(char)) continue;
    columns += isWide(code) || EMOJI.test(char) ? 2 : 1;
  }
  return columns;
}

/** Emoji a terminal draws as a picture, two columns wide. */
const EMOJI = /\p{Emoji_Presentation}/u;
const ZERO_WIDTH = /\p{Mn}|\p{Me}|\p{Cf}/u;

/** East Asian wide and full-width ranges (Unicode's EastAsianWidth W and F, the blocks that matter). */
function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}
