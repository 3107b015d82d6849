import type { DiscoveryDocument } from '../discovery.ts';

/**
 * `pending` is MCP 2026-07-28's `input_required` answer (DOMAIN.md section 10): neither ok nor failed, the call goes
 * on in its next round. `unknown` is a record whose outcome its log cannot show (ADR 18): a request a host or bridge
 * logged without its answer (a blind spot, never a success), or a server event (a stderr line, an exit) that is no
 * request at all and is stored uncounted.
 */
export const BUCKETS = ['ok', 'pending', 'unknown', 'refusal', 'transient', 'throttled', 'ambiguous'] as const;
export type Bucket = (typeof BUCKETS)[number];
export type FailureBucket = Exclude<Bucket, 'ok' | 'pending' | 'unknown'>;
export const FAILURE_BUCKETS: readonly FailureBucket[] = ['refusal', 'transient', 'throttled', 'ambiguous'];

/**
 * Whether an answer is a failure: not ok, not an input request that the call's next round answers, and not a record
 * whose outcome the log does not show.
 */
export function isFailure(bucket: Bucket): bucket is FailureBucket {
  return bucket !== 'ok' && bucket !== 'pending' && bucket !== 'unknown';
}

/** Which field of the event decided the bucket: the answer to "why this bucket?". */
export const EVIDENCE = [
  'none',
  'override',
  'error.data',
  'structured_content',
  'adcp_error',
  'control_envelope',
  'rpc_code',
  'http_status',
  'sdk_text',
  'timeout',
  'is_error',
] as const;
export type Evidence = (typeof EVIDENCE)[number];

export interface Classification {
  bucket: Bucket;
  /** Finer reason inside the bucket, e.g. `not_declared`, `session_expired`, `rate_limited`. */
  kind: string;
  /** Stable id of the rule that matched first. */
  rule: string;
  evidence: Evidence;
}

/** An operator's re-mapping of one code for one server, applied before the default rules. */
export interface CodeOverride {
  match: { rpcCode: number } | { httpStatus: number };
  bucket: FailureBucket;
  kind: string;
}

/** What the classifier knows about the server an event was sent to. */
export interface ServerPolicy {
  discovery: DiscoveryDocument | null;
  overrides: readonly CodeOverride[];
}

export const NO_POLICY: ServerPolicy = { discovery: null, overrides: [] };
