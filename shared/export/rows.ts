import { csvLine } from './csv.ts';

/** The forms a table downloads in, beside the JSON its API answers. */
export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/**
 * A table as it downloads: its name (the file's) and its CSV columns, each a dotted path into the row the API
 * answers (`buckets.refusal`, `http.status`). NDJSON keeps each row whole; CSV flattens it to these columns, so
 * both carry the same values and a column's header says where in the JSON it comes from.
 */
export interface ExportTable {
  name: string;
  columns: readonly string[];
}

/** The value at a dotted path, or undefined where the row has none. */
export function valueAt(row: unknown, path: string): unknown {
  let value = row;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * The file's text in pieces of up to `rowsPerPiece` rows, as the rows come: a million-row export never holds more
 * than a piece. CSV starts with its header, even for no rows.
 */
export async function* exportText(
  format: ExportFormat,
  table: ExportTable,
  rows: AsyncIterable<unknown> | Iterable<unknown>,
  rowsPerPiece = 500,
): AsyncGenerator<string> {
  const line =
    format === 'csv'
      ? (row: unknown) => csvLine(table.columns.map((column) => valueAt(row, column)))
      : (row: unknown) => `${JSON.stringify(row)}\n`;
  let piece = format === 'csv' ? csvLine(table.columns) : '';
  let count = 0;
  for await (const row of rows) {
    piece += line(row);
    if (++count === rowsPerPiece) {
      yield piece;
      piece = '';
      count = 0;
    }
  }
  if (piece !== '') yield piece;
}
