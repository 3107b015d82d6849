import { meaningOf } from '../classify/codes.ts';
import { adcpDecides, DELAY_FIELDS, envelopeDecides } from '../classify/envelope.ts';
import { asRecord, type Signals } from '../classify/signals.ts';
import { reasonDecides, slugDecides } from '../classify/structured.ts';
import type { LensEvent } from '../event.ts';
import { type Reading, ReadingBuilder } from './profile.ts';

type Json = Record<string, unknown>;
type Carrier = readonly [path: string, value: Json | undefined];

/**
 * -32602 covers unknown tools and bad arguments alike, -32600 any malformed request: each selects broad request
 * repair (P) and names no cause (C). Seed 004 codes its eight -32602s 110000.
 */
const BROAD_CODES = new Set([-32602, -32600]);

/**
 * The paper's control view: each bit from typed fields of the frame only. Every string is opaque, JSON serialised
 * inside a text block included, and so is the SDK's `MCP error -32602:` prefix (the classifier's rule 6 reads it as
 * evidence `sdk_text`; here it is content). A result with no `error` and no `isError` earns nothing, whatever its
 * text says. P is earned exactly by the typed fields that decide a bucket by themselves in the classifier (a code
 * with a defined meaning, a structured reason, `adcp_error.recovery`, an envelope's policy or retry): a field that
 * selects refusal, transient or throttled selects a coarse policy.
 */
export function controlReading(event: LensEvent, s: Signals): Reading {
  const b = new ReadingBuilder();
  const error = event.response?.error;
  if (error !== undefined && error !== null) b.earn('D', 'response.error');
  else if (s.isError) b.earn('D', 'response.result.isError');
  codeBits(b, s);
  // Where the classifier reads each family, in its order (shared/classify/structured.ts, envelope.ts).
  const reasons: Carrier[] = [
    ['response.error.data', s.errorData],
    ['response.result.structuredContent.error.data', s.contentErrorData],
    ['response.result.structuredContent.error', s.contentError],
    ['response.result.structuredContent', s.content],
  ];
  for (const [path, carrier] of reasons) if (carrier !== undefined) reasonBits(b, path, carrier);
  for (const [path, carrier] of [reasons[0], reasons[3]] as Carrier[]) {
    const adcp = asRecord(carrier?.adcp_error);
    if (carrier !== undefined && adcp !== undefined) adcpBits(b, `${path}.adcp_error`, carrier, adcp);
  }
  const envelopes: Carrier[] = [
    ['response.result.error', s.resultError],
    ['response.error.data', s.errorData],
    ['response.result.structuredContent.error', s.contentError],
  ];
  for (const [path, carrier] of envelopes) if (carrier !== undefined) envelopeBits(b, path, carrier);
  detailBits(b, asRecord(error)?.data);
  return b.done();
}

function codeBits(b: ReadingBuilder, s: Signals): void {
  if (s.rpcCode === undefined) return;
  const meaning = meaningOf(s.protocol, s.rpcCode);
  if (meaning === undefined || meaning.bucket === 'ambiguous') return;
  b.earn('P', 'response.error.code');
  if (!BROAD_CODES.has(s.rpcCode)) b.earn('C', 'response.error.code');
}

const named = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** Seed 003's slug (`error`) and seed 002's `reason` with `retryable` and `resetsAt`. */
function reasonBits(b: ReadingBuilder, path: string, carrier: Json): void {
  if (slugDecides(carrier)) {
    b.earn('P', `${path}.error`);
    b.earn('C', `${path}.error`);
  }
  if (!named(carrier.reason)) return;
  b.earn('C', `${path}.reason`);
  const retryable = typeof carrier.retryable === 'boolean';
  if (reasonDecides(carrier)) b.earn('P', `${path}.${retryable ? 'retryable' : 'reason'}`);
  // When the denial lapses is timing; whether the same request may be sent again is unchanged-request safety.
  if (carrier.resetsAt != null) b.earn('R', `${path}.resetsAt`);
  if (retryable) b.earn('R', `${path}.retryable`);
}

/** AdCP 3.1's `adcp_error`: recovery class, code, offending field, retry_after. Its `suggestion` is prose. */
function adcpBits(b: ReadingBuilder, path: string, carrier: Json, adcp: Json): void {
  if (adcpDecides(carrier)) b.earn('P', `${path}.recovery`);
  if (named(adcp.code)) b.earn('C', `${path}.code`);
  if (named(adcp.field)) b.earn('T', `${path}.field`);
  if (adcp.retry_after != null) b.earn('R', `${path}.retry_after`);
}

/**
 * Seed 004's control envelope (section VII, Listing 1): code, target, policy, retry, sideEffects. The listing names no
 * executable repair; `repair.arguments` or `repair.request` (a complete replacement) is the spelling accepted for E.
 */
function envelopeBits(b: ReadingBuilder, path: string, error: Json): void {
  const retry = asRecord(error.retry);
  if (!named(error.policy) && retry === undefined && error.target == null && !named(error.schema)) return;
  if (envelopeDecides(error)) b.earn('P', `${path}.${named(error.policy) ? 'policy' : 'retry'}`);
  if (named(error.code)) b.earn('C', `${path}.code`);
  if (named(error.target) || asRecord(error.target) !== undefined) b.earn('T', `${path}.target`);
  const repair = asRecord(error.repair);
  for (const member of ['arguments', 'request']) {
    if (asRecord(repair?.[member]) !== undefined) b.earn('E', `${path}.repair.${member}`);
  }
  if (retry?.sameRequest === 'safe' || retry?.sameRequest === 'unsafe') b.earn('R', `${path}.retry.sameRequest`);
  const delay = DELAY_FIELDS.find((field) => retry?.[field] != null);
  if (delay !== undefined) b.earn('R', `${path}.retry.${delay}`);
  if (named(error.sideEffects)) b.earn('R', `${path}.sideEffects`);
}

/**
 * `google.rpc` details in an `error.data` array, as A2A sends them: ErrorInfo's reason names a cause, RetryInfo's
 * retryDelay is timing, BadRequest's field violation names the parameter.
 */
function detailBits(b: ReadingBuilder, data: unknown): void {
  if (!Array.isArray(data)) return;
  data.forEach((value, i) => {
    const detail = asRecord(value);
    const type = detail?.['@type'];
    if (detail === undefined || typeof type !== 'string') return;
    const path = `response.error.data[${i}]`;
    if (type.endsWith('google.rpc.ErrorInfo') && named(detail.reason)) b.earn('C', `${path}.reason`);
    if (type.endsWith('google.rpc.RetryInfo') && detail.retryDelay != null) b.earn('R', `${path}.retryDelay`);
    const violation = Array.isArray(detail.fieldViolations) ? asRecord(detail.fieldViolations[0]) : undefined;
    if (type.endsWith('google.rpc.BadRequest') && named(violation?.field)) {
      b.earn('T', `${path}.fieldViolations[0].field`);
    }
  });
}
