import type { Frame } from '../event.ts';
import type { Span } from './model.ts';
import { conventionSpan } from './semconv-span.ts';
import { traceloopSpan } from './traceloop-span.ts';

/** One MCP request as one MCP span records it, whichever instrumentation wrote the span. */
export interface McpSpan {
  method: string;
  /** The sender's record of the request; else the receiver's. */
  sent: boolean;
  /** Recorded in the MCP server (a request it sent or one it received); else in the MCP client. */
  byServer: boolean;
  /**
   * The request rebuilt from what the span kept (method, params), or the frame itself when a span carries it whole.
   * A JSON-RPC id is there only in the latter case: an id or session a span names beside the frame may be one its
   * instrumentation made up, and it must never feed identity, joins or dedupe.
   */
  request: Frame;
  response?: Frame;
  timeout?: true;
  /** `server.address[:port]` when the span names it. */
  endpoint?: string;
  /** `mcp.protocol.version` (semantic conventions): the request's era where no HTTP span captured its header. */
  protocolVersion?: string;
}

/** A span's MCP reading: a request, `session` for a session span (no request), undefined for no MCP span. */
export type McpRead = McpSpan | 'session' | undefined;

const TRACELOOP_SCOPE = '@traceloop/instrumentation-mcp';

export function readMcpSpan(span: Span, scope: string): McpRead {
  // By scope, not by attributes: Traceloop's other instrumentations also name spans `*.tool`.
  if (scope === TRACELOOP_SCOPE) return traceloopSpan(span);
  return conventionSpan(span);
}
