import type { LensEvent } from './event.ts';
import { storableText } from './storable-text.ts';

/**
 * Small readers over the untouched JSON-RPC frames of an event. What they derive is stored in columns, so it is
 * normalised here, once, for both stores: text as well-formed UTF-16 without NUL and of bounded length, integers
 * within 32 bits. The frames themselves stay as they came (in the stored line).
 */

/** Past this length a method name, a reason or a trace id is no name: it is not stored in a column. */
export const MAX_DERIVED_TEXT = 256;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Text as a column holds it: lone surrogates replaced, NUL removed; null when empty or too long. */
export function columnText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = storableText(value);
  return text.length === 0 || text.length > MAX_DERIVED_TEXT ? null : text;
}

/** The request frame's method, else the `Mcp-Method` header a proxy logged (a line without a frame). */
export function rpcMethodOf(event: LensEvent): string | null {
  if (event.request !== undefined) return columnText(event.request.method);
  return columnText(event.http?.mcpMethod);
}

/** What each method that names something names, as `Mcp-Name` carries it: a tool, a prompt, a URI, a task. */
const NAMED_PARAM: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['resources/subscribe', 'uri'],
  ['resources/unsubscribe', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

/**
 * What a request's method names, as MCP 2026-07-28 puts it in the `Mcp-Name` header: the tool of `tools/call`, the
 * prompt of `prompts/get`, the URI of `resources/read`, the task of `tasks/get`. Null for other methods. A line
 * without a frame reads the header, for the same methods, so that a proxy's record names what the client's does.
 */
export function rpcNameOf(event: LensEvent): string | null {
  const method = rpcMethodOf(event);
  const param = method === null ? undefined : NAMED_PARAM.get(method);
  if (param === undefined) return null;
  if (event.request === undefined) return columnText(event.http?.mcpName);
  const params = event.request.params;
  if (typeof params !== 'object' || params === null) return null;
  return columnText((params as Record<string, unknown>)[param]);
}

/** The JSON-RPC error code; null when absent, not an integer, or outside the 32 bits JSON-RPC codes live in. */
export function rpcErrorCodeOf(event: LensEvent): number | null {
  const error = event.response?.error;
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && Number.isInteger(code) && code >= INT32_MIN && code <= INT32_MAX ? code : null;
}

export function metaOf(frame: Record<string, unknown> | undefined): Record<string, unknown> | null {
  const params = frame?.params;
  if (typeof params !== 'object' || params === null) return null;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : null;
}

/**
 * The key that joins a client's record of a request to a proxy's record of the same request (DOMAIN.md section 2):
 * the W3C traceparent the request carried (the header, `http.traceparent`, else `params._meta`), else the session
 * plus the JSON-RPC request id, which together name one request on one server. An access-log line has at most the
 * header; `X-Request-Id` is the other key (`http.requestId`, a column of its own), and shared/request-join.ts
 * pairs what neither key joins by time.
 */
export function correlationOf(event: LensEvent): string | null {
  const traceparent = columnText(event.http?.traceparent) ?? columnText(metaOf(event.request)?.traceparent);
  if (traceparent !== null) return `tp:${traceparent}`;
  const id = event.request?.id;
  if (event.session && (typeof id === 'string' || typeof id === 'number')) {
    // JSON keeps the parts apart whatever they contain, and PostgreSQL text cannot hold the NUL a separator might use.
    return `rpc:${JSON.stringify([event.server, event.session, id])}`;
  }
  return null;
}

/**
 * Requests an MCP server sends to the client (DOMAIN.md section 6, "Whose conduct"). A client logs them too, the
 * server's request in `request` and its own answer in `response`; they are the server's conduct, never the client's.
 * `ping` goes either way and stays with whoever logged it.
 */
export const SERVER_TO_CLIENT_METHODS: ReadonlySet<string> = new Set([
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
]);

export function isSentByServer(rpcMethod: string | null | undefined): boolean {
  return rpcMethod !== null && rpcMethod !== undefined && SERVER_TO_CLIENT_METHODS.has(rpcMethod);
}
