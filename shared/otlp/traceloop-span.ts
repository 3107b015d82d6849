import type { Frame } from '../event.ts';
import { jsonObject, text } from './attributes.ts';
import { exceptionOutcome, type Outcome, toolError } from './mcp-outcome.ts';
import type { McpRead } from './mcp-span.ts';
import { SPAN_KIND, type Span, STATUS_ERROR } from './model.ts';

/**
 * `@traceloop/instrumentation-mcp` (0.27): it wraps `Client.prototype.request` and `Server.prototype.request`, so
 * every span is the sender's, CLIENT in an MCP client and SERVER in an MCP server (a request the server sends to
 * the client, `ping.mcp` in the fixtures). Names are `{tool}.tool` for tools/call and `{method}.mcp` otherwise;
 * `traceloop.entity.input` holds the params (tools/call: `{tool_name, arguments}`), `traceloop.entity.output` the
 * result, cut down (tools/call: the first content text and `is_error`). A JSON-RPC error rejects the request, and
 * then its code lives only in the `exception` event and the status message.
 */
export function traceloopSpan(span: Span): McpRead {
  const a = span.attributes;
  if (text(a, 'traceloop.span.kind') === 'session' || span.name === 'mcp.client.session') return 'session';
  const byServer = span.kind === SPAN_KIND.server ? true : span.kind === SPAN_KIND.client ? false : undefined;
  const method = span.name.endsWith('.tool') ? 'tools/call' : span.name.endsWith('.mcp') ? span.name.slice(0, -4) : '';
  if (byServer === undefined || method === '') return undefined;
  const input = jsonObject(a, 'traceloop.entity.input');
  const output = jsonObject(a, 'traceloop.entity.output');
  const request = isFrame(input, 'method') ? input : { jsonrpc: '2.0', method, ...paramsOf(span, method, input) };
  return { method, sent: true, byServer, request, ...outcomeOf(span, method, output) };
}

function paramsOf(span: Span, method: string, input: Frame | undefined): { params?: Frame } {
  if (method !== 'tools/call') return input === undefined ? {} : { params: input };
  const given = input?.tool_name;
  const name =
    typeof given === 'string' ? given : (text(span.attributes, 'traceloop.entity.name') ?? span.name.slice(0, -5));
  const args = input?.arguments;
  return { params: isObject(args) ? { name, arguments: args } : { name } };
}

function outcomeOf(span: Span, method: string, output: Frame | undefined): Outcome {
  if (isFrame(output, 'result') || isFrame(output, 'error')) return { response: output };
  const rejected = exceptionOutcome(span);
  if (rejected !== undefined) return rejected;
  if (method === 'tools/call') {
    if (output !== undefined) return { response: { jsonrpc: '2.0', result: toolResult(output) } };
    // With traceContent off there is no output; an isError result still sets ERROR with its first text.
    return span.status.code === STATUS_ERROR ? { response: toolError(span.status.message) } : {};
  }
  return output === undefined ? {} : { response: { jsonrpc: '2.0', result: output } };
}

/** The result as far as Traceloop kept it: the first content block, and `isError` when the result had one. */
function toolResult(output: Frame): Frame {
  const first = output.result;
  const content = first === undefined ? [] : [typeof first === 'string' ? { type: 'text', text: first } : first];
  return typeof output.is_error === 'boolean' ? { content, isError: output.is_error } : { content };
}

/** A span that carries the JSON-RPC message whole, wire id and all, rather than Traceloop's cut-down parts. */
function isFrame(value: Frame | undefined, member: 'method' | 'result' | 'error'): value is Frame {
  return value !== undefined && typeof value.jsonrpc === 'string' && value[member] !== undefined;
}

function isObject(value: unknown): value is Frame {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
