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
  const due = await dueDeliveryRows(store, options.clock(), limit);
  const claimed: { row: DeliveryRow; lease: number }[] = [];
  for (const row of due) {
    // The lease outlasts the attempt's timeout; it is taken now, not when the list was read.
    const lease = options.clock() + options.timeoutMs * 2;
    if (await claimDelivery(store, { id: row.id, seen: row.nextAttemptAt ?? 0, leaseUntil: lease })) {
      claimed.push({ row, lease });
    }
  }
  // Settled, not all: one failing write must not end the round while other attempts still run.
  await Promise.allSettled(claimed.map(({ row, lease }) => attempt(store, row, lease, options)));
  return claimed.length;
}

async function attempt(store: Store, row: DeliveryRow, lease: number, options: DeliveryOptions): Promise<void> {
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
    error = response.ok ? null : await excerpt(response);
    await response.body?.cancel().catch(() => undefined);
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
        lease,
        status: next.status,
        transient: next.outcome === 'transient',
        nextAttemptAt: next.status === 'pending' ? next.retryAt : null,
      },
    );
  });
}

/** The start of a refusing receiver's answer, for the log: at most 300 bytes are read, however much it sends. */
async function excerpt(response: Response): Promise<string | null> {
  const reader = response.body?.getReader();
  if (reader === undefined) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < EXCERPT_BYTES) {
    const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (done || value === undefined) break;
    chunks.push(value);
    size += value.length;
  }
  await reader.cancel().catch(() => undefined);
  const text = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
  return text === '' ? null : text;
}

const EXCERPT_BYTES = 300;

function describe(failure: unknown): string {
  if (failure instanceof Error) {
    if (failure.name === 'TimeoutError') return 'no answer within the timeout';
    return failure.cause instanceof Error ? failure.cause.message : failure.message;
  }
  return String(failure);
}
