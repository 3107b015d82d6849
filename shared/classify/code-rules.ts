import {
  A2A_CODES,
  JSONRPC_REFUSALS,
  knownCodes,
  MCP_REFUSALS,
  METHOD_NOT_FOUND,
  outcomesFor,
  SESSION_NOT_FOUND,
} from './codes.ts';
import { outcome } from './outcome.ts';
import type { Signals } from './signals.ts';
import type { Classification } from './types.ts';

type Match = Classification | undefined;

/**
 * The typed code, when it is allowed to speak. A JSON-RPC code is a more specific statement than the HTTP status
 * it travels with (MCP 2026-07-28 sends -32601 with 404), except when the status itself is a statement about
 * rate or the moment: a 429 or a 5xx from a gateway outranks whatever code the body carries.
 */
export function heardCode(s: Signals): number | undefined {
  const status = s.status;
  if (status === undefined || s.rpcCode === undefined) return s.rpcCode;
  return status === 429 || (status >= 500 && status <= 599) ? undefined : s.rpcCode;
}

const METHOD_NOT_FOUND_OUT = outcome('rpc.method_not_found', 'refusal', 'not_supported', 'rpc_code');

export function methodNotFound(s: Signals): Match {
  return heardCode(s) === METHOD_NOT_FOUND ? METHOD_NOT_FOUND_OUT : undefined;
}

const A2A_OUT = outcomesFor(A2A_CODES.keys(), 'a2a', 'a2a.code', 'rpc_code');

export function a2aCode(s: Signals): Match {
  const code = s.protocol === 'a2a' ? heardCode(s) : undefined;
  return code === undefined ? undefined : A2A_OUT.get(code);
}

const SESSION_EXPIRED_OUT = outcome('mcp.session_not_found', 'refusal', 'session_expired', 'rpc_code');

/**
 * The session is gone: the TypeScript SDK's -32001, or the Python SDK's -32600 "Session not found" with HTTP 404 on
 * a request that carried a session (rule 3 of DOMAIN.md section 4 claims that 404 before rule 4 claims the code).
 */
export function mcpSessionNotFound(s: Signals): Match {
  // Some servers reuse -32001 for failed authentication; with a 401 or 403 the status is the clearer statement.
  if (s.protocol !== 'mcp' || s.status === 401 || s.status === 403) return undefined;
  const code = heardCode(s);
  if (code === SESSION_NOT_FOUND) return SESSION_EXPIRED_OUT;
  return code === INVALID_REQUEST && s.status === 404 && s.hasSession ? SESSION_EXPIRED_OUT : undefined;
}

const INVALID_REQUEST = -32600;

const REPAIR_MCP = outcomesFor(
  [...JSONRPC_REFUSALS.keys(), ...MCP_REFUSALS.keys()],
  'mcp',
  'rpc.request_repair',
  'rpc_code',
);
const REPAIR_A2A = outcomesFor(JSONRPC_REFUSALS.keys(), 'a2a', 'rpc.request_repair', 'rpc_code');

const INVALID_REQUEST_STATE = outcome('rpc.request_repair', 'refusal', 'invalid_request_state', 'rpc_code');

export function rpcRequestRepair(s: Signals): Match {
  const code = heardCode(s);
  if (code === undefined) return undefined;
  // MCP 2026-07-28: a rejected MRTR requestState is -32602 naming the reason (DOMAIN.md section 10).
  if (code === INVALID_PARAMS && s.protocol === 'mcp' && s.errorData?.reason === 'invalid_request_state') {
    return INVALID_REQUEST_STATE;
  }
  return (s.protocol === 'a2a' ? REPAIR_A2A : REPAIR_MCP).get(code);
}

const INVALID_PARAMS = -32602;

const SDK_MCP = outcomesFor(knownCodes('mcp'), 'mcp', 'tool_error.sdk_text', 'sdk_text');
const SDK_A2A = outcomesFor(knownCodes('a2a'), 'a2a', 'tool_error.sdk_text', 'sdk_text');

/** Rule 6: the code an SDK wrote into an isError result's text, read as rules 2 and 4 read a typed code. */
export function sdkText(s: Signals): Match {
  if (s.sdkCode === undefined) return undefined;
  return (s.protocol === 'a2a' ? SDK_A2A : SDK_MCP).get(s.sdkCode);
}
