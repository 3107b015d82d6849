import { claimDelivery, type DeliveryRow, dueDeliveryRows, recordAttempt } from '../../../db/queries/alerts.ts';
import type { Store } from '../../../db/runner.ts';
import { type AttemptAnswer, nextStep } from '../../../shared/alerts/delivery.ts';
import { type Notice, slackMessage } from '../../../shared/alerts/notice.ts';

export interface DeliveryOptions {
  clock: () => number;
  /** How long one attempt may take before it counts as no answer. */
  timeoutMs: number;
  /** The first transient retry waits this long; each further one twice as long. */
  backoffBaseMs: number;
}

export const DELIVERY_DEFAULTS: DeliveryOptions = { clock: Date.now, timeoutMs: 10_000, backoffBaseMs: 5_000 };

/** Sends every due notification once (in parallel, bounded by `limit`), logging each attempt. */
export async function deliverDue(store: Store, options: DeliveryOptions, limit = 20): Promise<number> {
  const now = options.clock();
  const due = await dueDeliveryRows(store, now, limit);
  const claimed = await Promise.all(
    due.map(async (row) => {
      const taken = await claimDelivery(store, {
        id: row.id,
        seen: row.nextAttemptAt ?? now,
        leaseUntil: now + options.timeoutMs * 2,
      });
      return taken ? row : null;
    }),
  );
  const mine = claimed.filter((row): row is DeliveryRow => row !== null);
  await Promise.all(mine.map((row) => attempt(store, row, options)));
  return mine.length;
}

async function attempt(store: Store, row: DeliveryRow, options: DeliveryOptions): Promise<void> {
  const notice = JSON.parse(row.notice) as Notice;
  const body = row.targetType === 'slack' ? slackMessage(notice) : notice;
  let answer: AttemptAnswer;
  let error: string | null = null;
  try {
    const response = await fetch(row.targetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'refusal-lens', 'idempotency-key': notice.key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: 'manual',
    });
    answer = { status: response.status, retryAfter: response.headers.get('retry-after') };
    if (!response.ok) error = (await response.text().catch(() => '')).slice(0, 300) || null;
    else await response.body?.cancel();
  } catch (failure) {
    answer = { status: null, retryAfter: null };
    error = describe(failure);
  }
  const at = options.clock();
  const next = nextStep(answer, row, at, options.backoffBaseMs);
  await store.transaction(async (tx) => {
    await recordAttempt(
      tx,
      {
        deliveryId: row.id,
        at,
        httpStatus: answer.status,
        outcome: next.outcome,
        error,
        retryAt: next.status === 'pending' ? next.retryAt : null,
      },
      {
        status: next.status,
        attempts: row.attempts + 1,
        transientFailures: row.transientFailures + (next.outcome === 'transient' ? 1 : 0),
        nextAttemptAt: next.status === 'pending' ? next.retryAt : null,
      },
    );
  });
}

function describe(failure: unknown): string {
  if (failure instanceof Error) {
    if (failure.name === 'TimeoutError') return 'no answer within the timeout';
    return failure.cause instanceof Error ? failure.cause.message : failure.message;
  }
  return String(failure);
}
