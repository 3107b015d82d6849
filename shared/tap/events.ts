import type { HttpFacts } from '../event.ts';
import type { Call } from './pairing.ts';
import type { FrameSummary } from './top-level.ts';

/**
 * The native events `lens tap` writes (DOMAIN.md section 2): one per request with both frames, and one per thing the
 * server did outside JSON-RPC. What the native model has no member for sits under `tap`, which readers of the native
 * format ignore and the stored line keeps:
 * - `omitted`: a frame too large to keep (passed through whole, recorded as its top-level summary);
 * - `cancelled`: the reason of the requester's `notifications/cancelled` (the request is a timeout);
 * - `stderr`: one line the server wrote to stderr (`stderrBytes` when it was longer than what is kept);
 * - `stdout`: a line on the server's stdout that is no JSON-RPC message (it breaks the host's transport);
 * - `exit`: the server's process ended (its code or signal; `error` when it could not be started at all);
 * - `proxyError`: the HTTP tap answered itself (502) because the upstream did not answer, and why.
 * Such server events are `record: "server_event"` (ADR 18): stored and listed, never counted as requests, neither ok
 * nor failed; the requests a crash left unanswered are the timeouts that show it.
 */
export interface TapFacts {
  omitted?: { request?: FrameSummary; response?: FrameSummary };
  cancelled?: string;
  stderr?: string;
  stderrBytes?: number;
  stdout?: string;
  exit?: { code: number | null; signal: string | null; error?: string };
  proxyError?: string;
}

/** Who recorded and between whom: the host (or the client a proxy saw) and the server. */
export interface Observer {
  source: 'client' | 'proxy';
  client?: string;
  server: string;
  session?: string;
}

export type EventLine = Record<string, unknown>;

/** One request, both frames (or what was kept of them), latency and timeout. */
export function callEvent(id: string, who: Observer, call: Call, http?: HttpFacts): EventLine {
  const tap: TapFacts = {};
  const event = head(id, call.request.at, who, http);
  if ('frame' in call.request.kept) event.request = call.request.kept.frame;
  else tap.omitted = { request: call.request.kept.omitted };
  if (call.response !== undefined) {
    if ('frame' in call.response.kept) event.response = call.response.kept.frame;
    else tap.omitted = { ...tap.omitted, response: call.response.kept.omitted };
  }
  if (call.latencyMs !== undefined) event.latencyMs = call.latencyMs;
  if (call.timeout) event.timeout = true;
  if (call.cancelled !== undefined) tap.cancelled = call.cancelled;
  if (Object.keys(tap).length > 0) event.tap = tap;
  return event;
}

/** Something the server did outside a request: a stderr line, a stray stdout line, its exit. */
export function serverEvent(id: string, who: Observer, at: number, tap: TapFacts, http?: HttpFacts): EventLine {
  return { ...head(id, at, who, http), record: 'server_event', tap };
}

function head(id: string, at: number, who: Observer, http: HttpFacts | undefined): EventLine {
  const event: EventLine = { id, ts: new Date(at).toISOString(), source: who.source };
  if (who.client !== undefined) event.client = who.client;
  event.server = who.server;
  if (who.session !== undefined) event.session = who.session;
  event.protocol = 'mcp';
  if (http !== undefined && Object.keys(http).length > 0) event.http = http;
  return event;
}
