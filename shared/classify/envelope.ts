import type { Kind } from './kinds.ts';
import { outcome } from './outcome.ts';
import { asRecord, type Signals } from './signals.ts';
import type { Classification, FailureBucket } from './types.ts';

type Json = Record<string, unknown>;

const adcp = (bucket: FailureBucket, kind: Kind) => outcome('structured.adcp', bucket, kind, 'adcp_error');
const ADCP_TERMINAL = adcp('refusal', 'permanently_denied');
const ADCP_CORRECTABLE = adcp('refusal', 'repair_required');
const ADCP_TRANSIENT = adcp('transient', 'retry_advised');
const ADCP_RATE_LIMITED = adcp('throttled', 'rate_limited');

// AdCP 3.1 carries `adcp_error` in error.data or in structuredContent; `recovery` is the field it tells agents
// to fall back on for codes they do not know, so it decides, and only RATE_LIMITED refines it.
function adcpOf(carrier: Json | undefined): Classification | undefined {
  const error = asRecord(carrier?.adcp_error);
  if (error === undefined) return undefined;
  if (error.recovery === 'terminal') return ADCP_TERMINAL;
  if (error.recovery === 'correctable') return ADCP_CORRECTABLE;
  if (error.recovery !== 'transient') return undefined;
  return error.code === 'RATE_LIMITED' ? ADCP_RATE_LIMITED : ADCP_TRANSIENT;
}

export const adcpError = (s: Signals): Classification | undefined => adcpOf(s.errorData) ?? adcpOf(s.content);

/** Whether one carrier's `adcp_error` decides a bucket by itself (shared/actionability reads it as policy). */
export const adcpDecides = (carrier: Json): boolean => adcpOf(carrier) !== undefined;

const envelope = (bucket: FailureBucket, kind: Kind) =>
  outcome('structured.control_envelope', bucket, kind, 'control_envelope');
const ALTERNATIVE = envelope('refusal', 'alternative_required');
const REFUSAL_POLICIES = new Map<string, Classification>([
  ['revise_arguments', envelope('refusal', 'invalid_params')],
  ['authenticate', envelope('refusal', 'unauthenticated')],
  ['choose_another_tool', ALTERNATIVE],
  ['select_alternative', ALTERNATIVE],
  ['stop_or_escalate', envelope('refusal', 'escalation_required')],
]);
const RETRY_POLICIES = new Set(['retry', 'retry_later', 'wait_and_retry', 'delayed_retry']);
const REPLAY_UNSAFE = envelope('refusal', 'replay_unsafe');
const RETRY_LATER = envelope('transient', 'retry_advised');
const RATE_LIMITED = envelope('throttled', 'rate_limited');

// The envelope is experimental (seed 004 section VII) and names no delay member; these are the spellings accepted.
export const DELAY_FIELDS = ['after', 'afterMs', 'afterSeconds', 'delayMs', 'delaySeconds', 'retryAfter', 'resetsAt'];
const RATE_CAUSE = /rate[._ -]?limit|throttl|too[._ -]?many[._ -]?requests/i;

const hasDelay = (retry: Json | undefined) => retry !== undefined && DELAY_FIELDS.some((f) => retry[f] != null);

function namesRate(error: Json, retry: Json | undefined): boolean {
  const cause = typeof retry?.reason === 'string' ? retry.reason : error.code;
  return hasDelay(retry) && typeof cause === 'string' && RATE_CAUSE.test(cause);
}

/** Seed 004's control envelope: `policy` and `retry` beside `code` and `target`. */
function envelopeOf(error: Json | undefined): Classification | undefined {
  if (error === undefined) return undefined;
  const policy = typeof error.policy === 'string' ? error.policy : undefined;
  const retry = asRecord(error.retry);
  const refused = policy === undefined ? undefined : REFUSAL_POLICIES.get(policy);
  if (refused !== undefined) return refused;
  // "unsafe" forbids an identical replay whatever else the envelope says; it is never permission to retry.
  if (retry?.sameRequest === 'unsafe') return REPLAY_UNSAFE;
  const retryable =
    (policy !== undefined && RETRY_POLICIES.has(policy)) || (retry?.sameRequest === 'safe' && hasDelay(retry));
  if (!retryable) return undefined;
  return namesRate(error, retry) ? RATE_LIMITED : RETRY_LATER;
}

/** Whether one envelope's policy or retry decides a bucket by itself (shared/actionability reads it as policy). */
export const envelopeDecides = (error: Json): boolean => envelopeOf(error) !== undefined;

export const controlEnvelope = (s: Signals): Classification | undefined =>
  envelopeOf(s.resultError) ?? envelopeOf(s.errorData) ?? envelopeOf(s.contentError);
