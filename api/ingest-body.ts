import { gunzipSync } from 'node:zlib';
import { type BatchLine, splitNdjson } from '../shared/batch.ts';
import { ApiError } from './errors.ts';
import type { BatchItem } from './services/ingest.ts';

/** The media types of a body of lines: NDJSON, or an access log as it is. */
export const NDJSON_TYPES = new Set(['application/x-ndjson', 'application/jsonl', 'application/ndjson', 'text/plain']);
/**
 * Lines (or array elements) one batch may hold. Each costs CPU before anything is stored, so a small body of a
 * million `{}` lines is refused before it is split, instead of taking seconds of the one event loop.
 */
export const MAX_BATCH_LINES = 100_000;
const FIX_LINES = `Send at most ${MAX_BATCH_LINES} lines per request (the CLI batches for you: --batch-lines).`;
const FIX_LOG_TYPE = 'Send an access log as it is, one line per line, as "Content-Type: text/plain".';
const FIX_TYPE = 'Send NDJSON as "Content-Type: application/x-ndjson", or a JSON array as "application/json".';

/**
 * Decodes an ingest body (NDJSON or a JSON array, optionally gzip) into numbered batch items. `readLines` reads the
 * lines of another format (an access log, api/ingest-formats.ts); such a body is lines, never a JSON array.
 */
export function decodeIngestBody(
  raw: Uint8Array,
  contentType: string | undefined,
  contentEncoding: string | undefined,
  maxBytes: number,
  readLines?: (lines: BatchLine[]) => BatchItem[],
): BatchItem[] {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const isJson = type === 'application/json' && readLines === undefined;
  if (!isJson && !NDJSON_TYPES.has(type)) {
    throw new ApiError('unsupported_media_type', 'that content type is not accepted', {
      fix: readLines === undefined ? FIX_TYPE : FIX_LOG_TYPE,
    });
  }
  const text = decodeUtf8(inflate(raw, contentEncoding, maxBytes));
  if (!isJson && lineCount(text) > MAX_BATCH_LINES) {
    throw new ApiError('payload_too_large', `the body holds more than ${MAX_BATCH_LINES} lines`, { fix: FIX_LINES });
  }
  const items = isJson ? jsonItems(text) : (readLines ?? ((lines) => lines))(splitNdjson(text));
  if (items.length > MAX_BATCH_LINES) {
    throw new ApiError('payload_too_large', `the body holds more than ${MAX_BATCH_LINES} events`, { fix: FIX_LINES });
  }
  return items;
}

/** Lines as an editor counts them (a last line without its newline included); counting them allocates nothing. */
function lineCount(text: string): number {
  let count = text.length > 0 && !text.endsWith('\n') ? 1 : 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/**
 * The body as its Content-Encoding says (identity or gzip), at most `maxBytes` once decompressed: a small gzip
 * bomb is refused as 413 before it is inflated whole. OTLP/HTTP bodies come through here too.
 */
export function inflate(raw: Uint8Array, encoding: string | undefined, maxBytes: number): Uint8Array {
  const name = encoding?.trim().toLowerCase() ?? 'identity';
  if (name === 'identity' || name === '') return raw;
  if (name !== 'gzip' && name !== 'x-gzip') {
    throw new ApiError('unsupported_media_type', 'that content encoding is not accepted', {
      fix: 'Send the body uncompressed or with "Content-Encoding: gzip".',
    });
  }
  try {
    return gunzipSync(raw, { maxOutputLength: maxBytes });
  } catch (error) {
    if (error instanceof RangeError) {
      throw new ApiError('payload_too_large', `the body is larger than ${maxBytes} bytes once decompressed`, {
        fix: 'Split the file into smaller batches (the CLI does this for you).',
      });
    }
    throw new ApiError('invalid_encoding', 'the body is not valid gzip', { fix: 'Compress the body with gzip.' });
  }
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError('invalid_encoding', 'the body is not valid UTF-8', {
      fix: 'Encode the log as UTF-8; no event of this batch was stored.',
    });
  }
}

function jsonItems(text: string): BatchItem[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_request', 'the body is not valid JSON', {
      fix: 'Send a JSON array of events, or NDJSON with "Content-Type: application/x-ndjson".',
    });
  }
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, index) => ({ line: index + 1, value: item }));
}
