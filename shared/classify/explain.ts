import { KIND_INFO, KINDS, type Kind } from './kinds.ts';
import { RULES, type RuleId } from './rules.ts';
import type { Bucket, Classification } from './types.ts';

export interface BucketGuide {
  readonly means: string;
  readonly clientShould: string;
}

/** DOMAIN.md section 4's table: what each bucket says, and what a correct client does with it. */
export const BUCKET_GUIDE: Readonly<Record<Bucket, BucketGuide>> = {
  ok: { means: 'The request succeeded.', clientShould: 'Nothing.' },
  pending: {
    means: 'Not an answer yet: the server asks for input (MCP 2026-07-28) before it answers the call.',
    clientShould: "Answer the input requests in the call's next round; do not send the call again without them.",
  },
  unknown: {
    means: 'The log does not show an outcome: a request logged without its answer, or a server event.',
    clientShould: 'Nothing can be read from it; it is neither a success nor a failure.',
  },
  refusal: {
    means: 'A statement about the contract: this interface will not do that.',
    clientShould: 'Do not retry; route to a declared interface, repair the request, authenticate, or stop.',
  },
  transient: {
    means: 'A statement about the moment: failed now, may work later.',
    clientShould: 'Retry with backoff, bounded to 3 retries.',
  },
  throttled: {
    means: 'Too many requests from this subject.',
    clientShould: 'Wait for Retry-After / resetsAt to pass, then retry.',
  },
  ambiguous: {
    means: 'No code with defined semantics.',
    clientShould: 'Abstain; never read ambiguity as permission to retry.',
  },
};

/** Why an event that matched a rule landed where it did. Keyed by rule id, so a new rule cannot go unexplained. */
const RULE_TEXT: Readonly<Record<RuleId, string>> = {
  'record.server_event': 'The record is a server event (a stderr line, an exit, a connect), not a request.',
  'record.outcome_unknown': "The log shows the request but not its outcome (the log's blind spot).",
  'record.connection':
    'The record is a connection attempt the log shows without frames: connected, or timed out or ended before it was.',
  'mrtr.input_required': 'The result says resultType "input_required": the server asks for input before it answers.',
  'mrtr.user_declined': "The round answers the server's input request with a decline or a cancel: the user refused.",
  ok: 'No timeout, no error, a status below 400 and no isError result.',
  'era.legacy_probe': 'The 2026-07-28 era probe (server/discover) got a 400: the server speaks only the 2025 protocol.',
  'override.rpc_code': 'An operator re-mapped this JSON-RPC code for this server.',
  'override.http_status': 'An operator re-mapped this HTTP status for this server.',
  'structured.adapter_slug':
    'error.data.error carries a known slug that names the failure (rate_limited, unknown_session, forbidden …).',
  'structured.denial_reason': 'error.data carries a reason with a retryable flag: whether sending it again can help.',
  'structured.adcp': "AdCP's adcp_error says how to recover: terminal, correctable or transient.",
  'structured.control_envelope':
    'The error names what to do next (a policy) or whether it may be retried (a retry rule).',
  'rpc.method_not_found': 'JSON-RPC -32601: the method is not part of this interface.',
  'http.method_not_allowed': 'HTTP 405: the endpoint does not offer this HTTP method.',
  'a2a.code': "An A2A error code, read with A2A's meanings.",
  'mcp.session_not_found':
    'MCP -32001, or -32600 with HTTP 404 on a request with a session (the SDKs\' "Session not found"): the session is gone.',
  'rpc.request_repair': 'A JSON-RPC code that says the request itself must change.',
  'http.404.no_discovery': 'A 404, and no discovery document for this server to judge the path by.',
  'http.404.no_path': 'A 404 whose path was not logged, so no document can judge it.',
  'http.404.not_declared': 'A 404 on a path the discovery document does not declare.',
  'http.404.session_expired': 'A 404 on a declared endpoint for a request that carried a session id.',
  'http.404.declared_path': 'A 404 on a declared path for a request without a session id.',
  'http.request_repair': 'An HTTP 4xx that says the request must change (400, 401, 403, 406, 409, 413, 415).',
  'http.429': 'HTTP 429: too many requests from this subject.',
  'http.5xx': 'HTTP 5xx: the server or a gateway failed now.',
  timeout: 'No response arrived in time.',
  'tool_error.sdk_text': 'An isError result whose text starts with an SDK\'s "MCP error <code>: ".',
  tool_error: 'An isError result without a code with defined meaning.',
  'fallback.ambiguous': 'Nothing with defined semantics: an unknown code, -32603 or an unexplained status.',
};

export interface RuleExplanation {
  readonly id: RuleId;
  readonly buckets: readonly Bucket[];
  readonly description: string;
}

const BY_ID = new Map<string, RuleExplanation>(
  RULES.map(({ id, buckets }) => [id, { id, buckets, description: RULE_TEXT[id] }]),
);

/** The rule behind a stored rule id, or undefined for an id this version does not know. */
export function explainRule(ruleId: string): RuleExplanation | undefined {
  return BY_ID.get(ruleId);
}

export interface Explanation {
  /** Why this bucket: the rule that matched. */
  readonly why: string;
  /** What the answer meant. */
  readonly means: string;
  /** What the client should have done. */
  readonly clientShould: string;
}

const isKind = (kind: string): kind is Kind => (KINDS as readonly string[]).includes(kind);

/**
 * The answer to "why this bucket, and what should the client have done?" for one classification. A kind is only
 * trusted for advice when it belongs to the bucket it came with: an operator override may pair a kind with
 * another bucket, and then the bucket's advice is the one that holds.
 */
export function explain(classification: Classification): Explanation {
  const rule = explainRule(classification.rule);
  const guide = BUCKET_GUIDE[classification.bucket];
  const info = isKind(classification.kind) ? KIND_INFO[classification.kind] : undefined;
  const advice = info !== undefined && info.bucket === classification.bucket ? info : guide;
  return {
    why: rule?.description ?? `Rule "${classification.rule}" (unknown to this version).`,
    means: advice.means,
    clientShould: advice.clientShould,
  };
}
