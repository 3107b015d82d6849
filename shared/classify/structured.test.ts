import { describe, expect, it } from 'vitest';
import { classify, explainRule, KINDS } from './index.ts';
import { event, policy, rpcError, toolError } from './test-support.ts';

const P = policy();
const verdict = (e: Parameters<typeof classify>[0]) => {
  const { bucket, kind, rule, evidence } = classify(e, P);
  // Every default outcome names a known rule and a kind from the closed set.
  expect(explainRule(rule)).toBeDefined();
  if (evidence !== 'override') expect(KINDS).toContain(kind);
  return [bucket, kind, rule, evidence];
};

describe('rule 1: seed 003 slug in error.data.error', () => {
  it.each([
    ['rate_limited', 429, 'throttled', 'rate_limited'],
    ['timeout', 503, 'transient', 'deadline_exceeded'],
    ['unknown_session', 404, 'refusal', 'session_expired'],
    ['missing_session', 400, 'refusal', 'session_missing'],
    ['malformed_session_id', 400, 'refusal', 'session_id_malformed'],
    ['foreign_origin', 403, 'refusal', 'foreign_origin'],
    ['forbidden', 403, 'refusal', 'forbidden'],
    ['unauthenticated', 401, 'refusal', 'unauthenticated'],
    ['body_too_large', 413, 'refusal', 'payload_too_large'],
    ['malformed_body', 400, 'refusal', 'malformed_message'],
    ['protocol_header', 400, 'refusal', 'protocol_header_mismatch'],
    ['method_not_allowed', 405, 'refusal', 'not_supported'],
    ['stream_gap', 409, 'refusal', 'resume_refused'],
    ['unknown_cursor', 400, 'refusal', 'resume_refused'],
    ['malformed_cursor', 400, 'refusal', 'resume_refused'],
  ])('%s (HTTP %i) → %s / %s', (slug, status, bucket, kind) => {
    expect(verdict(rpcError(-32000, { error: slug }, status))).toEqual([
      bucket,
      kind,
      'structured.adapter_slug',
      'error.data',
    ]);
  });

  it('beats the status it travels with: a 503 timeout slug is transient, a 404 unknown_session is no 404 probe', () => {
    expect(verdict(rpcError(-32001, { error: 'unknown_session' }, 404, { session: 'gone' }))[2]).toBe(
      'structured.adapter_slug',
    );
  });

  it('lets an unknown slug (the adapter\'s "handler") fall through to the next rules', () => {
    expect(verdict(rpcError(-32050, { error: 'handler' }))).toEqual([
      'ambiguous',
      'unknown_code',
      'fallback.ambiguous',
      'rpc_code',
    ]);
    expect(verdict(rpcError(-32050, { error: 'handler' }, 503))[2]).toBe('http.5xx');
  });

  it('reads the slug from an isError result structured content, with evidence structured_content', () => {
    const embedded = toolError('rate limited', {
      structuredContent: { error: { code: -32000, data: { error: 'rate_limited' } } },
    });
    const flat = toolError('no session', { structuredContent: { error: 'unknown_session' } });
    expect(verdict(embedded)).toEqual(['throttled', 'rate_limited', 'structured.adapter_slug', 'structured_content']);
    expect(verdict(flat)).toEqual(['refusal', 'session_expired', 'structured.adapter_slug', 'structured_content']);
  });
});

describe('rule 1: seed 002 reason + retryable', () => {
  const seed002 = {
    reason: 'policy.budget_exhausted',
    server: 'release-notes',
    retryable: false,
    resetsAt: '2026-03-11T00:00:00Z',
  };

  it('reads seed 002 frame (-32003, retryable:false) as a refusal', () => {
    expect(verdict(rpcError(-32003, seed002))).toEqual([
      'refusal',
      'policy_denied',
      'structured.denial_reason',
      'error.data',
    ]);
  });

  it('reads a bare MCP -32003 as ambiguous: the code is overloaded', () => {
    expect(verdict(rpcError(-32003))).toEqual(['ambiguous', 'unknown_code', 'fallback.ambiguous', 'rpc_code']);
  });

  it.each([
    [{ reason: 'policy.rate_limit', retryable: true }, 'throttled', 'rate_limited'],
    [{ reason: 'policy.rate_limit' }, 'throttled', 'rate_limited'],
    [{ reason: 'policy.deadline', retryable: true }, 'transient', 'retryable_denial'],
    [{ reason: 'policy.rate_limit', retryable: false }, 'refusal', 'policy_denied'],
    [{ reason: 'user.denied', retryable: false }, 'refusal', 'policy_denied'],
  ])('%o → %s / %s', (data, bucket, kind) => {
    expect(verdict(rpcError(-32003, data))).toEqual([bucket, kind, 'structured.denial_reason', 'error.data']);
  });

  it('does not read A2A google.rpc.ErrorInfo (a reason without retryable) as a verdict: the code decides', () => {
    const info = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a' };
    expect(verdict(rpcError(-32001, info, 200, { protocol: 'a2a' }))).toEqual([
      'refusal',
      'task_not_found',
      'a2a.code',
      'rpc_code',
    ]);
  });

  it('finds the reason in a tool result structured content', () => {
    const e = toolError('denied', { structuredContent: { reason: 'policy.sampling_disabled', retryable: false } });
    expect(verdict(e)).toEqual(['refusal', 'policy_denied', 'structured.denial_reason', 'structured_content']);
  });
});

describe('rule 1: AdCP adcp_error.recovery', () => {
  it.each([
    ['terminal', 'ACCOUNT_SUSPENDED', 'refusal', 'permanently_denied'],
    ['correctable', 'INVALID_REQUEST', 'refusal', 'repair_required'],
    ['transient', 'SERVICE_UNAVAILABLE', 'transient', 'retry_advised'],
    ['transient', 'RATE_LIMITED', 'throttled', 'rate_limited'],
  ])('recovery %s (%s) → %s / %s', (recovery, code, bucket, kind) => {
    const adcp = { adcp_error: { code, message: 'x', recovery } };
    expect(verdict(rpcError(-32000, adcp))).toEqual([bucket, kind, 'structured.adcp', 'adcp_error']);
    expect(verdict(toolError('x', { structuredContent: adcp }))).toEqual([
      bucket,
      kind,
      'structured.adcp',
      'adcp_error',
    ]);
  });

  it('falls through on an unknown recovery value', () => {
    expect(verdict(rpcError(-32000, { adcp_error: { code: 'X', recovery: 'maybe' } }, 400))[2]).toBe(
      'http.request_repair',
    );
  });
});

describe('rule 1: seed 004 control envelope', () => {
  const envelope = (error: Record<string, unknown>) =>
    toolError('walletAddress must be a string.', { resultType: 'complete', error });

  it('reads the paper example (revise_arguments, sameRequest unsafe) as a refusal', () => {
    const e = envelope({
      schema: 'urn:example:mcp-error:1',
      code: 'example.mcp.arguments.invalid_type',
      target: { kind: 'parameter', pointer: '/walletAddress' },
      policy: 'revise_arguments',
      retry: { sameRequest: 'unsafe' },
      sideEffects: 'none_committed',
    });
    expect(verdict(e)).toEqual(['refusal', 'invalid_params', 'structured.control_envelope', 'control_envelope']);
  });

  it.each([
    ['authenticate', 'unauthenticated'],
    ['choose_another_tool', 'alternative_required'],
    ['select_alternative', 'alternative_required'],
    ['stop_or_escalate', 'escalation_required'],
  ])('policy %s → refusal / %s', (policy, kind) => {
    expect(verdict(envelope({ policy }))).toEqual(['refusal', kind, 'structured.control_envelope', 'control_envelope']);
  });

  it.each([
    [{ policy: 'retry' }, 'transient', 'retry_advised'],
    [{ policy: 'retry_later', retry: { afterMs: 2000 } }, 'transient', 'retry_advised'],
    [{ policy: 'wait_and_retry' }, 'transient', 'retry_advised'],
    [{ retry: { sameRequest: 'safe', afterSeconds: 5 } }, 'transient', 'retry_advised'],
    [{ code: 'upstream.rate_limited', retry: { sameRequest: 'safe', afterSeconds: 30 } }, 'throttled', 'rate_limited'],
    [{ policy: 'wait_and_retry', retry: { reason: 'rate limit', retryAfter: 10 } }, 'throttled', 'rate_limited'],
  ])('%o → %s / %s', (error, bucket, kind) => {
    expect(verdict(envelope(error))).toEqual([bucket, kind, 'structured.control_envelope', 'control_envelope']);
  });

  it('never reads sameRequest "unsafe" as permission to replay, whatever the policy says', () => {
    const e = envelope({ policy: 'retry', retry: { sameRequest: 'unsafe', afterSeconds: 5 } });
    expect(verdict(e)).toEqual(['refusal', 'replay_unsafe', 'structured.control_envelope', 'control_envelope']);
    expect(verdict(envelope({ retry: { sameRequest: 'unsafe' } }))[1]).toBe('replay_unsafe');
  });

  it('needs a delay before a bare sameRequest "safe" reads as transient', () => {
    expect(verdict(envelope({ retry: { sameRequest: 'safe' } }))).toEqual([
      'ambiguous',
      'tool_error',
      'tool_error',
      'is_error',
    ]);
  });

  it('finds an envelope in error.data too', () => {
    expect(verdict(rpcError(-32000, { policy: 'stop_or_escalate' }, 500))).toEqual([
      'refusal',
      'escalation_required',
      'structured.control_envelope',
      'control_envelope',
    ]);
  });

  it('ignores structured members on results that are not errors', () => {
    const ok = event({ response: { jsonrpc: '2.0', id: 1, result: { error: { policy: 'stop_or_escalate' } } } });
    expect(verdict(ok)).toEqual(['ok', 'ok', 'ok', 'none']);
  });
});
