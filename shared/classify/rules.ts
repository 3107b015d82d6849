/**
 * The ordered rule table (DOMAIN.md section 4). The first rule that matches decides; its id is stored with the
 * event so that the UI can answer "why this bucket?".
 *
 * | id                          | bucket / kind                                              | evidence          |
 * |-----------------------------|------------------------------------------------------------|-------------------|
 * | record.server_event         | unknown / server_event (no request: stored uncounted)      | none              |
 * | record.outcome_unknown      | unknown / outcome_unknown (the log shows no outcome)       | none              |
 * | record.connection           | ok / ok connected; transient / timeout not connected       | none / timeout    |
 * | mrtr.input_required         | pending / input_required (MCP 2026-07-28's MRTR)           | none              |
 * | mrtr.user_declined          | refusal / user_declined (a decline or cancel in the round) | none              |
 * | ok                          | ok / ok                                                    | none              |
 * | era.legacy_probe            | ok / era_legacy (server/discover answered 400)             | http_status       |
 * | override.rpc_code           | the operator's                                             | override          |
 * | override.http_status        | the operator's                                             | override          |
 * | structured.adapter_slug     | seed 003 slug: refusal / throttled / transient             | error.data (1)    |
 * | structured.denial_reason    | seed 002: refusal/policy_denied, throttled, transient      | error.data (1)    |
 * | structured.adcp             | AdCP recovery: refusal / transient / throttled             | adcp_error        |
 * | structured.control_envelope | seed 004 policy/retry: refusal / transient / throttled     | control_envelope  |
 * | rpc.method_not_found        | refusal / not_supported (-32601)                           | rpc_code          |
 * | http.method_not_allowed     | refusal / not_supported (405)                              | http_status       |
 * | a2a.code                    | A2A -32001..-32009: refusal; -32006 ambiguous              | rpc_code          |
 * | mcp.session_not_found       | refusal / session_expired (MCP -32001, not with 401/403)   | rpc_code          |
 * | rpc.request_repair          | refusal (-32602, -32600, -32700; MCP -32002, -32020..22)   | rpc_code          |
 * | http.404.no_discovery       | ambiguous / unclassifiable_no_discovery                    | http_status       |
 * | http.404.no_path            | ambiguous / unclassifiable_no_discovery                    | http_status       |
 * | http.404.not_declared       | refusal / not_declared                                     | http_status       |
 * | http.404.session_expired    | refusal / session_expired                                  | http_status       |
 * | http.404.declared_path      | ambiguous / declared_path_404                              | http_status       |
 * | http.request_repair         | refusal (400, 401, 403, 406, 409, 413, 415)                | http_status       |
 * | http.429                    | throttled / rate_limited                                   | http_status       |
 * | http.5xx                    | transient (server_error, upstream_error, unavailable, ...) | http_status       |
 * | timeout                     | transient / timeout                                        | timeout           |
 * | tool_error.sdk_text         | as the code in `MCP error <code>: ` reads                  | sdk_text          |
 * | tool_error                  | ambiguous / tool_error                                     | is_error          |
 * | fallback.ambiguous          | ambiguous (internal_error, unknown_code, unknown_status…)  | (2)               |
 *
 * (1) `structured_content` when the reason sat in an isError result's structuredContent.
 * (2) `rpc_code` when there was a code, else `http_status`, else `none`.
 *
 * Order, where it is a decision:
 * - what the record is before what it says (ADR 18): a server event is no request, and a request whose log shows no
 *   outcome has none to read, whatever else the record carries;
 * - MCP 2026-07-28's rounds first (DOMAIN.md section 10): an input request is no answer yet, and a user who declined
 *   refused, whatever the server's text says (short of a transport failure, which says the round never got there);
 * - the era probe a 2025-only server refuses with 400 is negotiation, before any rule reads the 400;
 * - overrides next: an operator knows this server better than the defaults do;
 * - then what the server said in structured data (rule 1), the most specific statement there is;
 * - then typed JSON-RPC codes, all of them before any HTTP status, including the 404 analysis of rule 3: a 404
 *   that carries -32001 (MCP SDK "Session not found") or -32602 says more than the path does. `heardCode` lets a
 *   429 or 5xx outrank the code: those statuses are about rate and the moment, whatever the body says;
 * - the timeout after every status: a timed-out request has no response, so it speaks only when nothing else does;
 * - the tool result's prose last: a code recovered from text is weaker than a typed one.
 */
import { a2aCode, mcpSessionNotFound, methodNotFound, rpcRequestRepair, sdkText } from './code-rules.ts';
import { adcpError, controlEnvelope } from './envelope.ts';
import { eraLegacyProbe, inputRequired, userDeclined } from './era-rules.ts';
import { ambiguous, toolError } from './fallback.ts';
import { OK } from './outcome.ts';
import { httpOverride, rpcOverride } from './overrides.ts';
import { connection, outcomeUnknown, serverEvent } from './records.ts';
import type { Signals } from './signals.ts';
import { adapterSlug, denialReason } from './structured.ts';
import * as http from './transport.ts';
import type { Bucket, Classification, ServerPolicy } from './types.ts';

export interface Rule<Id extends string = string> {
  readonly id: Id;
  /** The buckets this rule can yield. */
  readonly buckets: readonly Bucket[];
  readonly apply: (signals: Signals, policy: ServerPolicy) => Classification | undefined;
}

const rule = <const Id extends string>(id: Id, buckets: readonly Bucket[], apply: Rule['apply']): Rule<Id> => ({
  id,
  buckets,
  apply,
});

const ANY: readonly Bucket[] = ['refusal', 'transient', 'throttled', 'ambiguous'];
const DECIDED: readonly Bucket[] = ['refusal', 'transient', 'throttled'];
const REFUSAL: readonly Bucket[] = ['refusal'];
const AMBIGUOUS: readonly Bucket[] = ['ambiguous'];

/** The table itself; the human text for each id lives in `explain.ts`. */
export const RULES = [
  rule('record.server_event', ['unknown'], serverEvent),
  rule('record.outcome_unknown', ['unknown'], outcomeUnknown),
  rule('record.connection', ['ok', 'transient'], connection),
  rule('mrtr.input_required', ['pending'], inputRequired),
  rule('mrtr.user_declined', REFUSAL, userDeclined),
  rule('ok', ['ok'], (s) => (s.failed ? undefined : OK)),
  rule('era.legacy_probe', ['ok'], eraLegacyProbe),
  rule('override.rpc_code', ANY, rpcOverride),
  rule('override.http_status', ANY, httpOverride),
  rule('structured.adapter_slug', DECIDED, adapterSlug),
  rule('structured.denial_reason', DECIDED, denialReason),
  rule('structured.adcp', DECIDED, adcpError),
  rule('structured.control_envelope', DECIDED, controlEnvelope),
  rule('rpc.method_not_found', REFUSAL, methodNotFound),
  rule('http.method_not_allowed', REFUSAL, http.methodNotAllowed),
  rule('a2a.code', ['refusal', 'ambiguous'], a2aCode),
  rule('mcp.session_not_found', REFUSAL, mcpSessionNotFound),
  rule('rpc.request_repair', REFUSAL, rpcRequestRepair),
  rule('http.404.no_discovery', AMBIGUOUS, http.notFoundNoDiscovery),
  rule('http.404.no_path', AMBIGUOUS, http.notFoundNoPath),
  rule('http.404.not_declared', REFUSAL, http.notFoundUndeclared),
  rule('http.404.session_expired', REFUSAL, http.notFoundSession),
  rule('http.404.declared_path', AMBIGUOUS, http.notFoundDeclared),
  rule('http.request_repair', REFUSAL, http.httpRequestRepair),
  rule('http.429', ['throttled'], http.tooManyRequests),
  rule('http.5xx', ['transient'], http.serverError),
  rule('timeout', ['transient'], http.timedOut),
  rule('tool_error.sdk_text', ANY, sdkText),
  rule('tool_error', AMBIGUOUS, toolError),
  // Rule 7 matches every event that reaches it, so nothing after it could ever match.
  rule('fallback.ambiguous', AMBIGUOUS, ambiguous),
] as const;

export type RuleId = (typeof RULES)[number]['id'];
