import { retryAfterMs } from '../retry-after.ts';

/**
 * How a notification is delivered, by the product's own rules (DOMAIN.md section 6): a refusal (4xx) is final, a
 * throttle (429) waits for Retry-After, a transient failure (5xx, 408, no answer) is retried with backoff at most
 * three times. Pure: the deliverer reports what happened, this answers what to do next.
 */
export const TRANSIENT_BUDGET = 3;
/** Throttles do not spend the transient budget, but a receiver that throttles forever is given up on. */
export const MAX_ATTEMPTS = 10;
/** A Retry-After longer than this is read as "not soon": the notification would be stale when it arrived. */
export const MAX_WAIT_MS = 60 * 60_000;
const DEFAULT_THROTTLE_WAIT_MS = 60_000;

export type DeliveryStatus = 'pending' | 'delivered' | 'refused' | 'failed';

export interface AttemptAnswer {
  /** The HTTP status; null when no answer came (connection refused, timeout). */
  status: number | null;
  retryAfter: string | null;
}

export interface DeliveryProgress {
  /** Attempts made before this one. */
  attempts: number;
  /** Transient failures before this one. */
  transientFailures: number;
}

export type NextStep =
  | { status: 'delivered'; outcome: 'delivered' }
  | { status: 'pending'; outcome: 'transient' | 'throttled'; retryAt: number }
  | { status: 'refused' | 'failed'; outcome: 'refused' | 'transient' | 'throttled'; retryAt: null };

export function nextStep(
  answer: AttemptAnswer,
  before: DeliveryProgress,
  now: number,
  backoffBaseMs: number,
): NextStep {
  const { status } = answer;
  if (status !== null && status >= 200 && status < 300) return { status: 'delivered', outcome: 'delivered' };
  const attempts = before.attempts + 1;
  if (status === 429) {
    const wait = retryAfterMs(answer.retryAfter, now) ?? DEFAULT_THROTTLE_WAIT_MS;
    if (attempts >= MAX_ATTEMPTS || wait > MAX_WAIT_MS)
      return { status: 'failed', outcome: 'throttled', retryAt: null };
    return { status: 'pending', outcome: 'throttled', retryAt: now + wait };
  }
  const transient = status === null || status === 408 || status >= 500;
  if (!transient) return { status: 'refused', outcome: 'refused', retryAt: null };
  const failures = before.transientFailures + 1;
  if (failures > TRANSIENT_BUDGET || attempts >= MAX_ATTEMPTS) {
    return { status: 'failed', outcome: 'transient', retryAt: null };
  }
  // A 503 may say when to come back; otherwise back off exponentially.
  const wait = retryAfterMs(answer.retryAfter, now) ?? backoffBaseMs * 2 ** (failures - 1);
  return { status: 'pending', outcome: 'transient', retryAt: now + Math.min(wait, MAX_WAIT_MS) };
}
