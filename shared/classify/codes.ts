import type { Kind } from './kinds.ts';
import { outcome } from './outcome.ts';
import type { Classification, Evidence, FailureBucket } from './types.ts';

/** What one JSON-RPC code means, once the protocol that sent it is known. */
export interface Meaning {
  readonly bucket: FailureBucket;
  readonly kind: Kind;
}

type Table = ReadonlyMap<number, Meaning>;

export const METHOD_NOT_FOUND = -32601;
export const INTERNAL_ERROR = -32603;
/** MCP TypeScript SDK "Session not found"; A2A "task not found". */
export const SESSION_NOT_FOUND = -32001;

const refusal = (kind: Kind): Meaning => ({ bucket: 'refusal', kind });

const METHOD_NOT_FOUND_MEANING = refusal('not_supported');
const SESSION_EXPIRED_MEANING = refusal('session_expired');

/** Codes JSON-RPC 2.0 reserves, the same for every protocol on top of it (rule 4). */
export const JSONRPC_REFUSALS: Table = new Map([
  [-32602, refusal('invalid_params')],
  [-32600, refusal('invalid_request')],
  [-32700, refusal('malformed_message')],
]);

/**
 * MCP's own codes in the implementation-defined range (rule 4). -32001 is read by its own rule, and -32003 is
 * deliberately absent: seed 002's sampling denial, A2A push and some gateways' rate limit all use it, so bare it
 * means nothing; the structured data of rule 1 decides when present.
 */
export const MCP_REFUSALS: Table = new Map([
  [-32002, refusal('resource_not_found')],
  [-32020, refusal('protocol_header_mismatch')],
  [-32021, refusal('client_capability_missing')],
  [-32022, refusal('protocol_version_unsupported')],
]);

/** A2A's codes (A2A specification, JSON-RPC binding). */
export const A2A_CODES: Table = new Map([
  [-32001, refusal('task_not_found')],
  [-32002, refusal('task_not_cancelable')],
  // Statements about a capability or a task's state, not a missing method: they block the request (rule 4), where
  // -32601 blocks the method at its path (rule 2) and starts a probe storm's search.
  [-32003, refusal('push_notification_not_supported')],
  [-32004, refusal('unsupported_operation')],
  [-32005, refusal('media_type_unsupported')],
  [-32006, { bucket: 'ambiguous', kind: 'invalid_agent_response' }],
  [-32007, refusal('extended_card_not_configured')],
  [-32008, refusal('extension_required')],
  [-32009, refusal('protocol_version_unsupported')],
]);

/** The full reading of one code for one protocol: rules 2 and 4 plus the protocol's own codes. */
export function meaningOf(protocol: 'mcp' | 'a2a', code: number): Meaning | undefined {
  if (code === METHOD_NOT_FOUND) return METHOD_NOT_FOUND_MEANING;
  const standard = JSONRPC_REFUSALS.get(code);
  if (standard !== undefined) return standard;
  if (protocol === 'a2a') return A2A_CODES.get(code);
  if (code === SESSION_NOT_FOUND) return SESSION_EXPIRED_MEANING;
  return MCP_REFUSALS.get(code);
}

/** Every code with a defined meaning for the protocol. */
export function knownCodes(protocol: 'mcp' | 'a2a'): number[] {
  const own = protocol === 'a2a' ? [...A2A_CODES.keys()] : [SESSION_NOT_FOUND, ...MCP_REFUSALS.keys()];
  return [METHOD_NOT_FOUND, ...JSONRPC_REFUSALS.keys(), ...own];
}

/** Pre-builds the frozen outcome of each code for one rule, so that matching allocates nothing. */
export function outcomesFor(
  codes: Iterable<number>,
  protocol: 'mcp' | 'a2a',
  rule: string,
  evidence: Evidence,
): ReadonlyMap<number, Classification> {
  const built = new Map<number, Classification>();
  for (const code of codes) {
    const meaning = meaningOf(protocol, code);
    if (meaning !== undefined) built.set(code, outcome(rule, meaning.bucket, meaning.kind, evidence));
  }
  return built;
}
