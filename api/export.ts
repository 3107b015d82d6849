import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { z } from 'zod';
import {
  EXPORT_FORMATS,
  EXPORT_MEDIA_TYPES,
  type ExportFormat,
  type ExportTable,
  exportText,
} from '../shared/export/rows.ts';
import type { AppDeps, Env } from './env.ts';

/** The `format` a table's route takes: its JSON (the default), or a download of every row (shared/export/rows.ts). */
export const formatParam = z.object({ format: z.enum(['json', ...EXPORT_FORMATS]).optional() });

/** The download asked for by `?format=`, else by the Accept header; null for the route's JSON. */
function requestedExport(c: Context, format: 'json' | ExportFormat | undefined): ExportFormat | null {
  if (format !== undefined) return format === 'json' ? null : format;
  const accept = c.req.header('accept') ?? '';
  if (/\btext\/csv\b/i.test(accept)) return 'csv';
  if (/\bapplication\/x-ndjson\b/i.test(accept)) return 'ndjson';
  return null;
}

type Rows = AsyncIterable<unknown> | Iterable<unknown>;

/**
 * A download streamed as its rows are read: the body pulls the next piece only when the client has taken the last,
 * so a million rows cost the server a piece of memory, not a million. Should a read fail half way, the body ends in
 * an error and the client sees a cut transfer, never a file that looks whole.
 */
function exportResponse(c: Context, format: ExportFormat, table: ExportTable, rows: Rows) {
  const pieces = exportText(format, table, rows);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
  return c.body(body, 200, {
    'content-type': EXPORT_MEDIA_TYPES[format],
    'content-disposition': `attachment; filename="lens-${table.name}.${format}"`,
    'cache-control': 'no-store',
  });
}

/**
 * Middleware for a table's route, after its validators: a download asked for streams every row `rows` reads (with
 * the query the validator passed, and the path's validated parameters); anything else goes on to the route's JSON
 * handler, whose answer type the typed client keeps.
 */
export function downloadable<Query extends { format?: 'json' | ExportFormat }>(
  table: ExportTable,
  rows: (query: Query, deps: AppDeps, params: Record<string, string>) => Rows | Promise<Rows>,
) {
  return createMiddleware<Env>(async (c, next) => {
    // The validator before this middleware has parsed the query into this shape; middleware cannot name its type.
    const query = c.req.valid('query' as never) as Query;
    const format = requestedExport(c, query.format);
    if (format === null) return next();
    // Awaited before the first byte: a refusal (a bad cursor, an unknown storm) is still an error answer, not a file.
    return exportResponse(c, format, table, await rows(query, c.var.deps, c.req.param()));
  });
}
