import type { Classification } from '../classify/types.ts';
import { clientInstanceOf, eraOf, isContinuation, protocolVersionOf } from '../era.ts';
import type { LensEvent } from '../event.ts';
import { columnText, rpcErrorCodeOf, rpcMethodOf, rpcNameOf } from '../frames.ts';
import { answeredContextOf, inputRequestsOf, scopeOf } from '../mrtr.ts';
import { readAnswerText } from '../result-text/read.ts';
import type { AnalysisEvent, ContextObservation } from './types.ts';

export interface StoredFacts {
  id: string;
  seq: number;
  identity: string | null;
  counted: boolean;
}

/** The analysis view of one classified event. */
export function toAnalysisEvent(event: LensEvent, classification: Classification, stored: StoredFacts): AnalysisEvent {
  const version = protocolVersionOf(event);
  return {
    id: stored.id,
    ts: event.ts,
    seq: stored.seq,
    source: event.source,
    protocol: event.protocol,
    client: event.client ?? null,
    server: event.server,
    session: event.session ?? null,
    httpMethod: event.http?.method?.toUpperCase() ?? null,
    httpPath: event.http?.path ?? null,
    httpStatus: event.http?.status ?? null,
    rpcMethod: rpcMethodOf(event),
    rpcName: rpcNameOf(event),
    rpcCode: rpcErrorCodeOf(event),
    answered: event.response !== undefined,
    latencyMs: event.latencyMs ?? null,
    identity: stored.identity,
    bucket: classification.bucket,
    kind: classification.kind,
    rule: classification.rule,
    waitUntil: waitUntilFor(event, classification),
    discoveryRead: event.discoveryRead ?? null,
    counted: stored.counted,
    era: eraOf(event, version),
    protocolVersion: version,
    continuation: isContinuation(event),
    context: contextOf(event),
    ...mrtrFactsOf(event),
  };
}

/**
 * What only MCP 2026-07-28 requests carry, present only where a request does (2025 traffic's events keep their shape):
 * the client instance, and what the server asked inside the answer.
 */
function mrtrFactsOf(event: LensEvent): Pick<AnalysisEvent, 'clientInstance' | 'asked'> {
  const clientInstance = clientInstanceOf(event);
  const asked = inputRequestsOf(event.server, event).flatMap(({ identity, method }) =>
    identity === null ? [] : [{ identity, method }],
  );
  return { ...(clientInstance === null ? {} : { clientInstance }), ...(asked.length === 0 ? {} : { asked }) };
}

/**
 * Seed 002's decision TTLs in seconds: a decision with one of these reasons may be evaluated afresh after it. The
 * other reasons of its table (`policy.sampling_disabled`, `policy.budget_exhausted`, ...) never lapse by time.
 */
export const DECISION_TTL_SECONDS: ReadonlyMap<string, number> = new Map([
  ['policy.rate_limit', 60],
  ['policy.deadline', 30],
]);

/**
 * Epoch ms until which a failure's statement stands (AnalysisEvent.waitUntil): for a throttled answer, the wait;
 * for a refusal, when it lapses; for a hidden throttle (an `ok` answer whose text says "rate limited, retry after
 * N", DOMAIN.md section 8), the wait its text names. Null for other buckets, a throttle that named no time, a refusal
 * that never lapses. It follows the classification, so a reclassification must ask again.
 */
export function waitUntilFor(event: LensEvent, classification: Pick<Classification, 'bucket'>): number | null {
  if (classification.bucket === 'throttled') return waitUntilOf(event);
  if (classification.bucket === 'ok') return textWaitOf(event);
  return classification.bucket === 'refusal' ? lapseOf(event) : null;
}

/** The wait a hidden throttle's text names, after the answer; null when the text states no throttle or no delay. */
function textWaitOf(event: LensEvent): number | null {
  const { failure, throttle } = readAnswerText(event, false);
  if (failure === null || throttle?.waitMs == null) return null;
  return atMost(event.ts + throttle.waitMs);
}

/** Retry-After (seconds after the answer) wins over `resetsAt`: it is the transport's own, more precise, statement. */
function waitUntilOf(event: LensEvent): number | null {
  const retryAfter = event.http?.retryAfter;
  if (retryAfter !== undefined) return atMost(event.ts + Math.round(retryAfter * 1000));
  return lapseOf(event);
}

/** `error.data.resetsAt`, else the TTL of `error.data.reason` after the answer; null when the frame names neither. */
function lapseOf(event: LensEvent): number | null {
  const data = errorData(event);
  const resetsAt = typeof data?.resetsAt === 'string' ? Date.parse(data.resetsAt) : Number.NaN;
  if (Number.isFinite(resetsAt)) return atMost(resetsAt);
  const ttl = typeof data?.reason === 'string' ? DECISION_TTL_SECONDS.get(data.reason) : undefined;
  return ttl === undefined ? null : event.ts + ttl * 1000;
}

/** An instant a Date can hold, whole milliseconds: the column is a 64-bit integer on both stores. */
function atMost(ms: number): number {
  return Math.min(ms, MAX_INSTANT_MS);
}

const MAX_INSTANT_MS = 8.64e15;

function errorData(event: LensEvent): Record<string, unknown> | null {
  const error = event.response?.error;
  if (typeof error !== 'object' || error === null) return null;
  const data = (error as { data?: unknown }).data;
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : null;
}

/** A sampling request and its answer: one record (2025), or the answer in a later MRTR round (2026). */
function contextOf(event: LensEvent): ContextObservation | null {
  if (isContinuation(event)) return answeredContextOf(event);
  if (rpcMethodOf(event) !== 'sampling/createMessage') return null;
  const params = event.request?.params as { includeContext?: unknown } | undefined;
  const requested = scopeOf(params?.includeContext) ?? 'none';
  const result = event.response?.result as { _meta?: { context?: Record<string, unknown> } } | undefined;
  const reported = result?._meta?.context;
  return {
    requested,
    applied: scopeOf(reported?.applied),
    reason: columnText(reported?.reason),
  };
}
