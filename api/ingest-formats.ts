import { hash } from 'node:crypto';
import type { BatchLine } from '../shared/batch.ts';
import type { FieldWarning, LineError } from '../shared/event.ts';
import { type HostFormat, type HostLogOptions, readHostLog } from '../shared/host-logs/index.ts';
import { LOG_FORMATS } from '../shared/log-formats.ts';
import { type ProxyFormat, proxyLineToEvent, type ServerOf } from '../shared/proxy-logs/index.ts';
import type { IngestQuery } from './ingest-query.ts';
import type { BatchItem } from './services/ingest.ts';

/**
 * The log formats ingest reads (DOMAIN.md section 9): the native NDJSON, reverse-proxy access logs as they are, each
 * line read as an event by shared/proxy-logs, and agent hosts' and bridges' own logs, each read whole by
 * shared/host-logs. The offline commands and the API read them alike.
 */
export const INGEST_FORMATS = LOG_FORMATS;
export type IngestFormat = (typeof INGEST_FORMATS)[number];

/** Whether `zone` is an IANA time zone this process knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** What names the lines of one access log: one server, one client, one protocol, or the routes (`serverOf`). */
export function proxyOptions(
  names: Omit<IngestQuery, 'format' | 'tz' | 'start' | 'file'>,
  serverOf: ServerOf | undefined,
) {
  return {
    ...(names.server === undefined ? { serverOf } : { server: names.server }),
    ...(names.client !== undefined && { client: names.client }),
    ...(names.protocol !== undefined && { protocol: names.protocol }),
  };
}

/**
 * One access-log line as a native event with its id (`lineId`), or the reader's refusal; a blank line is neither
 * (null). `seen` numbers the copies of a line within one log or batch.
 */
export function readProxyLine(
  format: ProxyFormat,
  text: string,
  options: ReturnType<typeof proxyOptions>,
  seen: Map<string, number>,
): { ok: true; value: object; warnings: FieldWarning[] } | { ok: false; error: LineError } | null {
  const read = proxyLineToEvent(format, text, options);
  if (read.ok) return { ok: true, value: { id: lineId(text, seen), format, ...read.value }, warnings: read.warnings };
  const { code, message } = read.error;
  // A blank line is no event and no mistake, in an access log as in NDJSON.
  return code === 'empty_line' ? null : { ok: false, error: { code, message } };
}

/**
 * An access log's lines as batch items: each an event with the reader's warnings, or refused with the reader's
 * code. `server` puts every line under one server; otherwise `serverOf` (the operator's routes and the servers'
 * discovery documents) names it, and a line it does not name is stored under its host, with a warning.
 */
export function proxyBatchItems(
  lines: readonly BatchLine[],
  format: ProxyFormat,
  names: Omit<IngestQuery, 'format'>,
  serverOf: ServerOf | undefined,
): BatchItem[] {
  const options = proxyOptions(names, serverOf);
  const seen = new Map<string, number>();
  return lines.flatMap(({ line, text }): BatchItem[] => {
    const read = readProxyLine(format, text, options, seen);
    if (read === null) return [];
    return [read.ok ? { line, value: read.value, warnings: read.warnings } : { line, refused: read.error }];
  });
}

/**
 * An access-log line's event id: a digest of the line as written, so that shipping a log again stores nothing twice.
 * A combined log writes whole seconds and no request id, so two alike requests in one second are two equal lines:
 * the second and later copies in a batch are numbered, or they would be taken for re-sent duplicates.
 */
function lineId(text: string, seen: Map<string, number>): string {
  const digest = hash('sha256', text, 'hex').slice(0, 32);
  const copies = seen.get(digest) ?? 0;
  seen.set(digest, copies + 1);
  return copies === 0 ? `px:${digest}` : `px:${digest}#${copies}`;
}

/** What names a host log's records: the query's server, client, zone, start and file name. */
export function hostOptions(names: Omit<IngestQuery, 'format'>, fileName = names.file): HostLogOptions {
  return {
    ...(names.server !== undefined && { server: names.server }),
    ...(names.client !== undefined && { client: names.client }),
    // No zone named: the reader takes this server's own, and says so in the answer.
    ...(names.tz !== undefined && { timeZone: names.tz }),
    ...(names.start !== undefined && { start: Date.parse(names.start) }),
    ...(fileName !== undefined && { fileName }),
  };
}

/**
 * A host log's lines as batch items: its records, each at the line it starts on, and the lines its reader could not
 * take. What the reader says of the log as a whole (its blind spots, the zone its local times were read in) rides
 * on the first record as warnings of the `format` field, so the answer states it.
 */
export function hostBatchItems(lines: readonly BatchLine[], format: HostFormat, options: HostLogOptions): BatchItem[] {
  const { reads, notes } = readHostLog(format, lines, options);
  const items: BatchItem[] = reads.map((read) =>
    'refused' in read
      ? { line: read.line, refused: read.refused }
      : { line: read.line, value: read.value, warnings: read.warnings },
  );
  const first = items.find((item): item is Extract<BatchItem, { value: unknown }> => 'value' in item);
  if (first !== undefined) {
    first.warnings = [...notes.map((message) => ({ field: 'format', message })), ...(first.warnings ?? [])];
  }
  return items;
}
