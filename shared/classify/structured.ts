import type { Kind } from './kinds.ts';
import { outcome } from './outcome.ts';
import type { Signals } from './signals.ts';
import type { Classification, FailureBucket } from './types.ts';

type Json = Record<string, unknown>;

/** One verdict, built for both places a structured reason can sit: `error.data` or a tool's structured content. */
interface Verdict {
  readonly data: Classification;
  readonly content: Classification;
}

function verdict(rule: string, bucket: FailureBucket, kind: Kind): Verdict {
  return {
    data: outcome(rule, bucket, kind, 'error.data'),
    content: outcome(rule, bucket, kind, 'structured_content'),
  };
}

/**
 * Rule 1 reads `error.data` first, then an isError result's structured content: an embedded error's `data`, the
 * embedded `error` object, then the structured content itself.
 */
function firstVerdict(s: Signals, read: (carrier: Json | undefined) => Verdict | undefined) {
  const typed = read(s.errorData);
  if (typed !== undefined) return typed.data;
  return (read(s.contentErrorData) ?? read(s.contentError) ?? read(s.content))?.content;
}

const SLUG_RULE = 'structured.adapter_slug';
const SLUGS = new Map<string, Verdict>([
  ['rate_limited', verdict(SLUG_RULE, 'throttled', 'rate_limited')],
  ['timeout', verdict(SLUG_RULE, 'transient', 'deadline_exceeded')],
  ['unknown_session', verdict(SLUG_RULE, 'refusal', 'session_expired')],
  ['missing_session', verdict(SLUG_RULE, 'refusal', 'session_missing')],
  ['malformed_session_id', verdict(SLUG_RULE, 'refusal', 'session_id_malformed')],
  ['foreign_origin', verdict(SLUG_RULE, 'refusal', 'foreign_origin')],
  ['forbidden', verdict(SLUG_RULE, 'refusal', 'forbidden')],
  ['unauthenticated', verdict(SLUG_RULE, 'refusal', 'unauthenticated')],
  ['body_too_large', verdict(SLUG_RULE, 'refusal', 'payload_too_large')],
  ['malformed_body', verdict(SLUG_RULE, 'refusal', 'malformed_message')],
  ['protocol_header', verdict(SLUG_RULE, 'refusal', 'protocol_header_mismatch')],
  ['method_not_allowed', verdict(SLUG_RULE, 'refusal', 'not_supported')],
  ['stream_gap', verdict(SLUG_RULE, 'refusal', 'resume_refused')],
  ['unknown_cursor', verdict(SLUG_RULE, 'refusal', 'resume_refused')],
  ['malformed_cursor', verdict(SLUG_RULE, 'refusal', 'resume_refused')],
]);

// Seed 003's stable slug in `error.data.error`. An unknown slug (its `handler` included) says nothing.
const slugOf = (carrier: Json | undefined): Verdict | undefined => {
  const slug = carrier?.error;
  return typeof slug === 'string' ? SLUGS.get(slug) : undefined;
};

export const adapterSlug = (s: Signals): Classification | undefined => firstVerdict(s, slugOf);

/** Whether one carrier's seed 003 slug decides a bucket by itself (shared/actionability reads it as policy). */
export const slugDecides = (carrier: Json): boolean => slugOf(carrier) !== undefined;

const REASON_RULE = 'structured.denial_reason';
const NOT_RETRYABLE = verdict(REASON_RULE, 'refusal', 'policy_denied');
const RATE_LIMIT = verdict(REASON_RULE, 'throttled', 'rate_limited');
const RETRYABLE = verdict(REASON_RULE, 'transient', 'retryable_denial');

/**
 * Seed 002's `reason` + `retryable`. An explicit `retryable: false` outranks the reason: seed 002 calls false the
 * safer default, and a refusal read as retryable is the failure that loops. A reason with no `retryable` (A2A's
 * `google.rpc.ErrorInfo` looks like that) says nothing, except the one reason that names rate.
 */
const reasonOf = (carrier: Json | undefined): Verdict | undefined => {
  if (carrier === undefined || typeof carrier.reason !== 'string') return undefined;
  if (carrier.retryable === false) return NOT_RETRYABLE;
  if (carrier.reason === 'policy.rate_limit') return RATE_LIMIT;
  return carrier.retryable === true ? RETRYABLE : undefined;
};

export const denialReason = (s: Signals): Classification | undefined => firstVerdict(s, reasonOf);

/** Whether one carrier's seed 002 reason decides a bucket by itself (shared/actionability reads it as policy). */
export const reasonDecides = (carrier: Json): boolean => reasonOf(carrier) !== undefined;
