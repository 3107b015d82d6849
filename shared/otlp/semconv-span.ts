import type { Frame } from '../event.ts';
import { isSentByServer } from '../frames.ts';
import { hostPort, integer, jsonObject, text } from './attributes.ts';
import { errorOutcome, exceptionOutcome, type Outcome, sdkError, toolError } from './mcp-outcome.ts';
import type { McpSpan } from './mcp-span.ts';
import { SPAN_KIND, type Span } from './model.ts';

/**
 * A span under the OpenTelemetry MCP semantic conventions (DOMAIN.md section 9): named `{mcp.method.name} {target}`,
 * CLIENT on the side that sends the request, SERVER on the side that receives it, with the older attribute names
 * beside the new ones. `jsonrpc.request.id` / `mcp.request.id` and `mcp.session.id` are read by nothing: emitters
 * fill them with ids of their own (a `Guid.NewGuid()` per session in the C# SDK, a hash of the session id, a UUID
 * per request, the id's string form that no longer says 47 from "47"), so they cannot name what was on the wire.
 */
export function conventionSpan(span: Span): McpSpan | undefined {
  const a = span.attributes;
  const method = text(a, 'mcp.method.name');
  const sent = span.kind === SPAN_KIND.client ? true : span.kind === SPAN_KIND.server ? false : undefined;
  if (method === undefined || sent === undefined) return undefined;
  const params = paramsOf(span, method);
  const endpoint = hostPort(a, 'server.address', 'server.port');
  const protocolVersion = text(a, 'mcp.protocol.version');
  return {
    method,
    sent,
    // The MCP server sends sampling, elicitation and roots requests, and receives every other one.
    byServer: sent === isSentByServer(method),
    request: params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
    ...outcomeOf(span),
    ...(endpoint !== undefined && { endpoint }),
    ...(protocolVersion !== undefined && { protocolVersion }),
  };
}

function paramsOf(span: Span, method: string): Frame | undefined {
  const a = span.attributes;
  const target = span.name.startsWith(`${method} `) ? span.name.slice(method.length + 1) : undefined;
  if (method === 'tools/call') {
    const name = text(a, 'gen_ai.tool.name') ?? text(a, 'mcp.tool.name') ?? target;
    // Opt-in: instrumentations record the arguments only when told to.
    const args = jsonObject(a, 'gen_ai.tool.call.arguments');
    return args === undefined ? { name } : { name, arguments: args };
  }
  if (method === 'prompts/get') return { name: text(a, 'gen_ai.prompt.name') ?? target };
  const uri = text(a, 'mcp.resource.uri');
  return uri === undefined ? undefined : { uri };
}

function outcomeOf(span: Span): Outcome {
  const a = span.attributes;
  const errorType = text(a, 'error.type');
  if (errorType === 'tool_error') return { response: toolError(span.status.message) };
  if (errorType === 'timeout') return { timeout: true };
  const code =
    nonZero(integer(a, 'rpc.response.status_code')) ??
    nonZero(integer(a, 'rpc.jsonrpc.error_code')) ??
    nonZero(integer(a, 'rpc.status_code')) ??
    nonZero(integer(a, 'error.type'));
  if (code === undefined) return exceptionOutcome(span) ?? {};
  const sdk = sdkError(span.status.message);
  return errorOutcome(code, sdk?.code === code ? sdk.message : span.status.message);
}

/** 0 is an RPC status "OK" in the older RPC conventions, and no JSON-RPC error code. */
function nonZero(code: number | undefined): number | undefined {
  return code === 0 ? undefined : code;
}
