import { detectFormat } from '../../shared/proxy-logs/index.ts';
import { INGEST_FORMATS, type IngestFormat, isTimeZone } from '../ingest-formats.ts';
import type { IngestQuery } from '../ingest-query.ts';
import { CliError } from './cli-error.ts';
import { readLines } from './read-lines.ts';

/** What `--format`, `--server`, `--client` and `--protocol` say of a log, for `ingest` and `classify`. */
export type LogNames = Omit<IngestQuery, 'format'>;

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2})$/i;

/** How many lines detection reads: enough to outvote a stray first line, few enough to cost nothing. */
const DETECT_LINES = 20;

/** A file's format from its first lines (shared/proxy-logs/detect.ts); native when none is recognised. */
export async function detectFileFormat(path: string): Promise<IngestFormat> {
  const lines: string[] = [];
  for await (const { text } of readLines(path)) {
    if (text !== null) lines.push(text);
    if (lines.length >= DETECT_LINES) break;
  }
  return detectFormat(lines) ?? 'native';
}

export function logFormat(value: string): IngestFormat {
  if ((INGEST_FORMATS as readonly string[]).includes(value)) return value as IngestFormat;
  throw new CliError(`--format must be auto or one of ${INGEST_FORMATS.join(', ')}; got "${value}"`, 2);
}

export function logNames(values: {
  server?: string;
  client?: string;
  protocol?: string;
  tz?: string;
  start?: string;
}): LogNames {
  const { server, client, protocol, tz, start } = values;
  if (tz !== undefined && !isTimeZone(tz)) {
    throw new CliError(`--tz must be an IANA time zone, such as Europe/Berlin or UTC; got "${tz}"`, 2);
  }
  if (start !== undefined && (!ISO_WITH_ZONE.test(start) || Number.isNaN(Date.parse(start)))) {
    throw new CliError(`--start must be an ISO time with a zone (2026-12-06T01:30:00Z); got "${start}"`, 2);
  }
  if (protocol !== undefined && protocol !== 'mcp' && protocol !== 'a2a') {
    throw new CliError(`--protocol must be mcp or a2a; got "${protocol}"`, 2);
  }
  for (const [flag, name] of [
    ['--server', server],
    ['--client', client],
  ] as const) {
    if (name !== undefined && (name.length === 0 || name.length > 200)) {
      throw new CliError(`${flag} must be a name of 1 to 200 characters`, 2);
    }
  }
  return {
    ...(server !== undefined && { server }),
    ...(client !== undefined && { client }),
    ...(protocol !== undefined && { protocol }),
    ...(tz !== undefined && { tz }),
    ...(start !== undefined && { start }),
  };
}

/** The ingest query for an access log; empty for native NDJSON, whose lines name their own server and client. */
export function ingestQueryString(format: IngestFormat, names: LogNames): string {
  if (format === 'native') return '';
  const params = new URLSearchParams({ format });
  for (const [key, value] of Object.entries(names)) params.set(key, value);
  return `?${params}`;
}
