import type { Frame } from '../event.ts';
import { text } from './attributes.ts';
import type { Span } from './model.ts';

/** How an MCP request ended, as far as its span says: the answer's frame, or that none came in time. */
export interface Outcome {
  response?: Frame;
  timeout?: true;
}

/**
 * The TypeScript MCP SDK's text for an error with a code: `McpError` prefixes its message with it, and a client
 * that turns a received error into an `McpError` prefixes the wire message once more.
 */
const SDK_PREFIX = /^MCP error (-?\d{1,10}): /;
const INTEGER = /^-?\d{1,10}$/;

/** The code and the wire message in an SDK error text, one prefix removed; undefined for text without one. */
export function sdkError(message: string): { code: number; message: string } | undefined {
  const match = SDK_PREFIX.exec(message);
  return match?.[1] === undefined ? undefined : { code: Number(match[1]), message: message.slice(match[0].length) };
}

/**
 * What an `exception` event says of a request that failed; undefined when the span recorded none. The code counts
 * only with the SDK's prefix in the message: the OTel SDK writes any error's numeric `code` as `exception.type`, and
 * the transport's StreamableHTTPError has one too, an HTTP status. A failure without a code (a refused connection,
 * an HTTP error) got no JSON-RPC answer: no frame.
 */
export function exceptionOutcome(span: Span): Outcome | undefined {
  const exception = span.events.find((event) => event.name === 'exception');
  if (exception === undefined) return undefined;
  const type = text(exception.attributes, 'exception.type');
  const error = sdkError(text(exception.attributes, 'exception.message') ?? span.status.message);
  if (error === undefined || (type !== undefined && INTEGER.test(type) && Number(type) !== error.code)) return {};
  return errorOutcome(error.code, error.message);
}

/**
 * A JSON-RPC error answer, except for the two the TypeScript SDK makes up on the client without any answer:
 * -32001 "Request timed out" (its own timer) and -32000 "Connection closed". A server's -32001 read as "session not
 * found" would make a refusal of a request nobody answered.
 */
export function errorOutcome(code: number, message: string | undefined): Outcome {
  if (code === -32001 && message === 'Request timed out') return { timeout: true };
  if (code === -32000 && message === 'Connection closed') return {};
  const error = message === undefined || message === '' ? { code } : { code, message };
  return { response: { jsonrpc: '2.0', error } };
}

/** A tool result with `isError`, as the SDKs answer a tool that failed: its first text is all a span keeps. */
export function toolError(message: string): Frame {
  const content = message === '' ? [] : [{ type: 'text', text: message }];
  return { jsonrpc: '2.0', result: { content, isError: true } };
}
