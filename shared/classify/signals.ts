import type { LensEvent, RecordKind } from '../event.ts';

type Json = Record<string, unknown>;

/**
 * Everything the rules read, taken from the event's frames once. Rules never look at the raw frames, so each
 * member has one definition and one cost, paid once per event. For a successful event only `failed` is read, and
 * every other member is left empty.
 */
export interface Signals {
  /**
   * `timeout`, a response `error`, HTTP status >= 400 or a tool result with `isError: true`. An `error: null`
   * beside a result (JSON-RPC 1.0-era encoders write one) is no error.
   */
  readonly failed: boolean;
  readonly protocol: 'mcp' | 'a2a';
  readonly status: number | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;
  /** The request carried a session id. */
  readonly hasSession: boolean;
  readonly timeout: boolean;
  /** `response.error.code` when it is an integer: the typed code. */
  readonly rpcCode: number | undefined;
  /** `response.error.data` when it is an object. */
  readonly errorData: Json | undefined;
  /** `response.result.isError === true`. */
  readonly isError: boolean;
  /** On an isError result: `result.error` (seed 004's control envelope sits there). */
  readonly resultError: Json | undefined;
  /** On an isError result: `result.structuredContent`, its `error` and its `error.data`, when objects. */
  readonly content: Json | undefined;
  readonly contentError: Json | undefined;
  readonly contentErrorData: Json | undefined;
  /** On an isError result: the code in the first text block's `MCP error <code>: ` prefix. */
  readonly sdkCode: number | undefined;
  /** The request frame's JSON-RPC method. */
  readonly rpcMethod: string | undefined;
  /** MCP 2026-07-28: the answer is `resultType: "input_required"` (an MRTR round asking for input). */
  readonly inputRequired: boolean;
  /** MCP 2026-07-28: the round answers an input request with a decline or a cancel (`inputResponses`). */
  readonly declined: boolean;
  /** What a record that is no request with a known outcome is (ADR 18). */
  readonly record: RecordKind | undefined;
}

export function readSignals(event: LensEvent): Signals {
  if (event.record === 'connection') return event.timeout === true ? NOT_CONNECTED : CONNECTED;
  if (event.record !== undefined) return event.record === 'server_event' ? SERVER_EVENT : OUTCOME_UNKNOWN;
  const status = event.http?.status;
  const response = event.response;
  const rawError = response?.error;
  const result = asRecord(response?.result);
  const isError = result?.isError === true;
  const timeout = event.timeout === true;
  const failed = timeout || isError || (rawError !== undefined && rawError !== null) || (status ?? 0) >= 400;
  const inputRequired = result?.resultType === 'input_required';
  const declined = declinesInput(event.request);
  // Most events succeed, and no rule but `ok` reads anything else from them: share one constant, allocate nothing.
  if (!failed) return inputRequired ? INPUT_REQUIRED : declined ? DECLINED : SUCCEEDED;
  const error = asRecord(rawError);
  const toolResult = isError ? result : undefined;
  const content = asRecord(toolResult?.structuredContent);
  const contentError = asRecord(content?.error);
  return {
    failed,
    protocol: event.protocol,
    status,
    method: event.http?.method,
    path: event.http?.path,
    hasSession: event.session !== undefined && event.session.length > 0,
    timeout,
    rpcCode: integer(error?.code),
    errorData: asRecord(error?.data),
    isError,
    resultError: asRecord(toolResult?.error),
    content,
    contentError,
    contentErrorData: asRecord(contentError?.data),
    sdkCode: toolResult === undefined ? undefined : sdkCodeOf(toolResult.content),
    rpcMethod: typeof event.request?.method === 'string' ? event.request.method : undefined,
    inputRequired,
    declined,
    record: undefined,
  };
}

/** Whether a round's `inputResponses` decline or cancel what the server asked for (MCP 2026-07-28's MRTR). */
function declinesInput(request: Json | undefined): boolean {
  const responses = asRecord(asRecord(request?.params)?.inputResponses);
  if (responses === undefined) return false;
  for (const key in responses) {
    const action = asRecord(responses[key])?.action;
    if (action === 'decline' || action === 'cancel') return true;
  }
  return false;
}

const SUCCEEDED: Signals = Object.freeze({
  failed: false,
  protocol: 'mcp',
  status: undefined,
  method: undefined,
  path: undefined,
  hasSession: false,
  timeout: false,
  rpcCode: undefined,
  errorData: undefined,
  isError: false,
  resultError: undefined,
  content: undefined,
  contentError: undefined,
  contentErrorData: undefined,
  sdkCode: undefined,
  rpcMethod: undefined,
  inputRequired: false,
  declined: false,
  record: undefined,
});
const INPUT_REQUIRED: Signals = Object.freeze({ ...SUCCEEDED, inputRequired: true });
const DECLINED: Signals = Object.freeze({ ...SUCCEEDED, declined: true });
const SERVER_EVENT: Signals = Object.freeze({ ...SUCCEEDED, record: 'server_event' });
const OUTCOME_UNKNOWN: Signals = Object.freeze({ ...SUCCEEDED, record: 'outcome_unknown' });
const CONNECTED: Signals = Object.freeze({ ...SUCCEEDED, record: 'connection' });
const NOT_CONNECTED: Signals = Object.freeze({ ...SUCCEEDED, failed: true, timeout: true, record: 'connection' });

// The official MCP SDKs turn a protocol error thrown inside a tool into an isError result whose text starts with
// this fixed prefix (DOMAIN.md rule 6); it is the only place a -32602 for an unknown tool survives.
const SDK_PREFIX = /^MCP error (-?\d+): /;

function sdkCodeOf(content: unknown): number | undefined {
  if (!Array.isArray(content)) return undefined;
  const first = asRecord(content[0]);
  if (first?.type !== 'text' || typeof first.text !== 'string' || !first.text.startsWith('MCP error ')) {
    return undefined;
  }
  const match = SDK_PREFIX.exec(first.text);
  return match?.[1] === undefined ? undefined : integer(Number(match[1]));
}

export function asRecord(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function integer(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}
