/**
 * The contract of the gate replay (DOMAIN.md section 6): for each event of a client's traffic, whether a correct
 * client would have sent it, and why not.
 */
export const GATE_REASONS = [
  /** The same request key was refused before (for session-scoped refusals: in the same session). */
  'after_refusal',
  /** The 5th or later attempt of a key after transient failures (the budget is 3 retries). */
  'past_transient_budget',
  /** Sent to a server that had throttled this client, before its Retry-After / resetsAt elapsed. */
  'before_retry_after',
  /** An identical retry (same key) after an ambiguous answer. */
  'identical_after_ambiguous',
] as const;
export type GateReason = (typeof GATE_REASONS)[number];

/**
 * What a refusal blocks (DOMAIN.md section 6): the endpoint (client + server + HTTP method + path) for `not_declared`
 * and 405; the JSON-RPC method at that path for -32601; the request key in one session for session-scoped refusals;
 * the request key for every other refusal. An ambiguous answer and a spent transient budget block the key.
 */
export const GATE_BLOCKS = ['endpoint', 'method', 'key', 'session'] as const;
export type GateBlock = (typeof GATE_BLOCKS)[number];

export interface GateVerdict {
  /** The event's id. */
  id: string;
  /** The request key: client + server + HTTP method + path + (identity, else JSON-RPC method). */
  key: string;
  avoidable: boolean;
  reason: GateReason | null;
  /** Which block made it avoidable; null when needed, and for a throttle (it holds the whole server, not a block). */
  blockedBy: GateBlock | null;
  /**
   * On a `before_retry_after` verdict whose wait a hidden throttle named (an `ok` answer whose text said "rate limited,
   * retry after N"): the throttle was read from text, not from a status or a typed field. Absent otherwise.
   */
  readFromText?: true;
}
