import type { Bucket } from './types.ts';

/**
 * The closed set of kinds the default rules produce: the finer reason inside a bucket (DOMAIN.md section 4).
 * Each kind belongs to exactly one bucket, so a kind alone says what the client should have done. Operator
 * overrides may name kinds outside this set; `explain()` then falls back to the bucket's advice.
 */
export const KINDS = [
  'ok',
  // ok: the era probe answered by a 2025-only server (DOMAIN.md section 10): negotiation, not a failure
  'era_legacy',
  // pending: an MRTR input request (section 10)
  'input_required',
  // unknown: a record whose log does not show an outcome (ADR 18)
  'outcome_unknown',
  'server_event',
  // refusal: a statement about the contract
  'not_supported',
  'not_declared',
  'session_expired',
  'session_missing',
  'session_id_malformed',
  'resume_refused',
  'invalid_params',
  'invalid_request_state',
  'user_declined',
  'invalid_request',
  'malformed_message',
  'unauthenticated',
  'forbidden',
  'foreign_origin',
  'resource_not_found',
  'task_not_found',
  'task_not_cancelable',
  'push_notification_not_supported',
  'unsupported_operation',
  'extended_card_not_configured',
  'protocol_header_mismatch',
  'protocol_version_unsupported',
  'client_capability_missing',
  'extension_required',
  'media_type_unsupported',
  'media_type_not_acceptable',
  'conflict',
  'payload_too_large',
  'policy_denied',
  'repair_required',
  'permanently_denied',
  'alternative_required',
  'escalation_required',
  'replay_unsafe',
  // transient: a statement about the moment
  'server_error',
  'upstream_error',
  'unavailable',
  'upstream_timeout',
  'timeout',
  'deadline_exceeded',
  'retryable_denial',
  'retry_advised',
  // throttled: a statement about rate
  'rate_limited',
  // ambiguous: no code with defined semantics
  'unclassifiable_no_discovery',
  'declared_path_404',
  'tool_error',
  'internal_error',
  'invalid_agent_response',
  'unknown_code',
  'unknown_status',
  'unexplained_failure',
] as const;
export type Kind = (typeof KINDS)[number];

/**
 * Refusals that concern one session rather than the request: the prescribed recovery (a new session) starts
 * clean, so a gate blocks the request key on that session only (DOMAIN.md section 6).
 */
export const SESSION_SCOPED_KINDS: readonly Kind[] = ['session_expired', 'session_missing', 'session_id_malformed'];

export interface KindInfo {
  readonly bucket: Bucket;
  /** What the server said, in one sentence. */
  readonly means: string;
  /** What a correct client does next. */
  readonly clientShould: string;
}

const refusal = (means: string, clientShould: string): KindInfo => ({ bucket: 'refusal', means, clientShould });
const transient = (means: string): KindInfo => ({
  bucket: 'transient',
  means,
  clientShould: 'Retry with backoff, at most 3 times.',
});
const ambiguous = (means: string): KindInfo => ({
  bucket: 'ambiguous',
  means,
  clientShould: 'Abstain: do not read this as permission to retry; surface it to a person or the model.',
});

const REPAIR = 'Do not resend it as is: repair the request, then send the corrected one once.';
const ROUTE = 'Do not retry: route to a declared interface that offers it, or stop.';
const RESESSION = 'Do not replay: start a new session (initialize), then send the request in it.';
const STOP = 'Do not retry: stop, or escalate to a person.';

export const KIND_INFO: Readonly<Record<Kind, KindInfo>> = {
  ok: { bucket: 'ok', means: 'The request succeeded.', clientShould: 'Nothing.' },
  era_legacy: {
    bucket: 'ok',
    means: 'The server speaks only the 2025 protocol: it answered the 2026-07-28 era probe with a 400.',
    clientShould: 'Fall back to initialize, and keep the verdict: do not probe this server again on every connect.',
  },
  input_required: {
    bucket: 'pending',
    means: 'The server needs input first (an elicitation, a sampling request or roots) before it can answer.',
    clientShould: 'Answer the input requests and send the call again with them and the same requestState.',
  },
  outcome_unknown: {
    bucket: 'unknown',
    means: 'The log shows the request but not its outcome: a blind spot of the log, not a success.',
    clientShould: 'Nothing can be said: record the answers (lens tap, or the host at debug level) to know.',
  },
  server_event: {
    bucket: 'unknown',
    means: 'Something the server or the bridge did outside a request: a stderr line, an exit, a connect.',
    clientShould: 'Nothing: it is no request. Read it beside the requests of its server around that time.',
  },
  not_supported: refusal('This interface does not offer that method or operation.', ROUTE),
  not_declared: refusal('The path is not part of the contract the server declares.', ROUTE),
  session_expired: refusal('The session id names a session the server no longer has.', RESESSION),
  session_missing: refusal('A stateful request came without a session id.', RESESSION),
  session_id_malformed: refusal('The session id header is not a session id.', RESESSION),
  resume_refused: refusal(
    'The stream cannot be resumed from the quoted cursor.',
    'Do not resume from that cursor again: re-issue the lost requests or reconnect without it.',
  ),
  invalid_params: refusal('The parameters are invalid: unknown tool, bad argument or missing record.', REPAIR),
  invalid_request_state: refusal(
    'The server rejected the requestState the round carried (forged, altered or expired).',
    'Start the call afresh without a requestState; never replay a rejected one.',
  ),
  user_declined: refusal(
    'The user declined (or cancelled) the input the server asked for.',
    'Do not send the call again unless the user changes their mind.',
  ),
  invalid_request: refusal('The request is not a valid request for this interface.', REPAIR),
  malformed_message: refusal('The body could not be parsed as a JSON-RPC message.', REPAIR),
  unauthenticated: refusal('The request carried no valid credentials.', 'Authenticate, then send it once.'),
  forbidden: refusal('The credentials lack the required permission.', 'Do not retry: obtain the permission or stop.'),
  foreign_origin: refusal('The Origin header names an origin the server does not serve.', STOP),
  resource_not_found: refusal('The resource does not exist.', ROUTE),
  task_not_found: refusal('The task does not exist (A2A).', 'Do not retry: the task id is wrong or expired.'),
  task_not_cancelable: refusal('The task is in a state where it cannot be canceled (A2A).', STOP),
  push_notification_not_supported: refusal(
    'The agent does not send push notifications (A2A).',
    'Do not retry: poll the task or subscribe to its stream instead.',
  ),
  unsupported_operation: refusal('The agent does not support this operation in this state (A2A).', STOP),
  extended_card_not_configured: refusal(
    'The agent has no authenticated extended card (A2A).',
    'Do not retry: use its public card.',
  ),
  protocol_header_mismatch: refusal('The protocol version header disagrees with the negotiated version.', REPAIR),
  protocol_version_unsupported: refusal('The server does not speak that protocol version.', REPAIR),
  client_capability_missing: refusal('The request needs a client capability that was not declared.', REPAIR),
  extension_required: refusal('The agent requires an extension the client did not declare (A2A).', REPAIR),
  media_type_unsupported: refusal('The request content type is not accepted.', REPAIR),
  media_type_not_acceptable: refusal('The server cannot answer in a media type the Accept header allows.', REPAIR),
  conflict: refusal('The request conflicts with the current state of the target.', REPAIR),
  payload_too_large: refusal('The body exceeds the server ceiling.', REPAIR),
  policy_denied: refusal('A policy denied the request and marked the denial not retryable.', STOP),
  repair_required: refusal('The server asks for a corrected request (AdCP "correctable").', REPAIR),
  permanently_denied: refusal('The server says no change of timing will help (AdCP "terminal").', STOP),
  alternative_required: refusal('The server asks the client to choose another tool.', ROUTE),
  escalation_required: refusal('The server asks the client to stop or escalate.', STOP),
  replay_unsafe: refusal('The server declares an identical replay unsafe.', STOP),
  server_error: transient('The server failed while handling the request.'),
  upstream_error: transient('A gateway got a bad answer from the server behind it (502).'),
  unavailable: transient('The server is momentarily unable to handle requests (503).'),
  upstream_timeout: transient('A gateway timed out waiting for the server behind it (504).'),
  timeout: transient('No response arrived in time.'),
  deadline_exceeded: transient('The server did not answer inside its own request deadline.'),
  retryable_denial: transient('A policy denied the request now and marked the denial retryable.'),
  retry_advised: transient('The server asks for a later retry of the same request.'),
  rate_limited: {
    bucket: 'throttled',
    means: 'Too many requests from this subject.',
    clientShould: 'Wait until Retry-After / resetsAt has passed, then retry.',
  },
  unclassifiable_no_discovery: ambiguous(
    'A 404 the product cannot judge: it holds no discovery document for this server (or the path is unknown).',
  ),
  declared_path_404: ambiguous('A 404 on a declared path for a request without a session id.'),
  tool_error: ambiguous('The tool reported an error (isError) without a code with defined semantics.'),
  internal_error: ambiguous('JSON-RPC -32603: the server failed without saying whether it is lasting.'),
  invalid_agent_response: ambiguous('The remote agent produced an invalid response (A2A -32006).'),
  unknown_code: ambiguous('A JSON-RPC code with no defined meaning for this protocol.'),
  unknown_status: ambiguous('An HTTP status with no defined meaning here.'),
  unexplained_failure: ambiguous('An error without a code or a failing status.'),
};
