import { LOCAL_TIME_FORMATS, UNTIMED_FORMATS } from '../../shared/host-logs/detect.ts';
import type { LogFormat } from '../../shared/proxy-logs/detect.ts';

/** What the operator said about one file: its format, and for an access log its server and protocol. */
export interface IngestSettings {
  format: LogFormat;
  /** Every line belongs to this server; empty: the API maps each line (discovery documents, then its host). */
  server: string;
  /** Empty: not set, the API reads the line as MCP unless a mapping names the protocol. */
  protocol: '' | 'mcp' | 'a2a';
  /** The zone of a log whose times are local without one (VS Code, Cursor); empty or absent: the server's own zone. */
  tz?: string;
  /**
   * When a log whose lines carry no time starts (mcp-remote, supergateway, mcp-proxy, Claude Code's --debug), as a
   * `datetime-local` input gives it: this browser's wall time. Empty or absent: the time of the upload.
   */
  start?: string;
  /** The file's name: Claude Desktop's `mcp-server-NAME.log` names its server, `mcp.log` is its combined log. */
  file?: string;
}

/** The query of `POST /api/v1/ingest`: absent `format` means native, so a native upload is the request it always was. */
export interface IngestQuery {
  format?: Exclude<LogFormat, 'native'>;
  server?: string;
  protocol?: 'mcp' | 'a2a';
  tz?: string;
  /** ISO 8601 with its zone (`Z`). */
  start?: string;
  file?: string;
}

/** The query parameters one file's batches are sent with; `server` and `protocol` belong to access logs only. */
export function ingestQuery(settings: IngestSettings): IngestQuery {
  if (settings.format === 'native') return {};
  const query: IngestQuery = { format: settings.format };
  const server = settings.server.trim();
  if (server !== '') query.server = server;
  if (settings.protocol !== '') query.protocol = settings.protocol;
  const tz = settings.tz?.trim() ?? '';
  if (needsZone(settings.format) && tz !== '') query.tz = tz;
  const start = settings.start === undefined || settings.start === '' ? Number.NaN : Date.parse(settings.start);
  if (needsStart(settings.format) && Number.isFinite(start)) query.start = new Date(start).toISOString();
  if (settings.format === 'claude-desktop' && settings.file !== undefined) query.file = settings.file;
  return query;
}

/** The same query as the text after the path ("?format=nginx-json&server=release-desk"), or "" for none. */
export function ingestSearch(settings: IngestSettings): string {
  const search = new URLSearchParams(Object.entries(ingestQuery(settings))).toString();
  return search === '' ? '' : `?${search}`;
}

/** A format whose times are local without a zone: the screen asks for the zone. */
export function needsZone(format: LogFormat): boolean {
  return (LOCAL_TIME_FORMATS as readonly string[]).includes(format);
}

/** A format whose lines may carry no time: the screen asks when the log starts. */
export function needsStart(format: LogFormat): boolean {
  return (UNTIMED_FORMATS as readonly string[]).includes(format);
}
