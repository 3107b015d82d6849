import { hostFormatOfLine } from '../host-logs/detect.ts';
import type { LogFormat } from '../log-formats.ts';
import { isJsonObject, member } from './common.ts';
import { envoyLineToEvent } from './envoy.ts';
import { nginxCombinedLineToEvent } from './nginx-combined.ts';

export type { LogFormat } from '../log-formats.ts';

/**
 * The format of a log from its first lines: each non-blank line votes for the format it is a line of, and the
 * format most lines are wins (the first seen on a tie). `null` when no line is one of them.
 *
 * - `native`: a JSON object with `ts` and `source` (DOMAIN.md section 2).
 * - `nginx-json`: a JSON object with nginx's time variables (`msec`, `time_iso8601` or `time_local`) and one of
 *   its request variables (`request_method`, `request_uri`, `uri`, `request`, `status`).
 * - `envoy-json`: a JSON object with `start_time` and one of `response_code`, `method`, `path`,
 *   `x-envoy-origin-path` (the documented default keys, see envoy.ts).
 * - `envoy`, `nginx-combined`: a line their readers accept.
 * - a host's or bridge's log (`mcp-remote`, `supergateway`, `mcp-proxy`): a line of its grammar
 *   (shared/host-logs/detect.ts); their continuation lines vote for nothing.
 *
 * A log whose JSON keys are the operator's own is not recognised here; name its format instead.
 */
export function detectFormat(firstLines: string[]): LogFormat | null {
  const votes = new Map<LogFormat, number>();
  for (const line of firstLines) {
    const format = formatOfLine(line);
    if (format !== null) votes.set(format, (votes.get(format) ?? 0) + 1);
  }
  let best: LogFormat | null = null;
  let bestVotes = 0;
  for (const [format, count] of votes) {
    if (count > bestVotes) {
      best = format;
      bestVotes = count;
    }
  }
  return best;
}

const NGINX_TIME_KEYS = ['msec', 'time_iso8601', 'time_local'];
const NGINX_REQUEST_KEYS = ['request_method', 'request_uri', 'uri', 'request', 'status'];
const ENVOY_REQUEST_KEYS = ['response_code', 'method', 'path', 'x-envoy-origin-path'];

function formatOfLine(line: string): LogFormat | null {
  const text = line.trim();
  if (text.length === 0) return null;
  if (text.startsWith('{')) return formatOfJson(text);
  const host = hostFormatOfLine(line);
  if (host !== null) return host;
  if (text.startsWith('[')) return envoyLineToEvent(text).ok ? 'envoy' : null;
  return nginxCombinedLineToEvent(text).ok ? 'nginx-combined' : null;
}

function formatOfJson(text: string): LogFormat | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isJsonObject(value)) return null;
  const has = (key: string) => member(value, key) !== undefined;
  if (has('ts') && has('source')) return 'native';
  if (NGINX_TIME_KEYS.some(has) && NGINX_REQUEST_KEYS.some(has)) return 'nginx-json';
  if (has('start_time') && ENVOY_REQUEST_KEYS.some(has)) return 'envoy-json';
  return null;
}
