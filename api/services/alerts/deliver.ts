import { claimDelivery, type DeliveryRow, dueDeliveryRows, recordAttempt } from '../../../db/queries/alerts.ts';
import type { Store } from '../../../db/runner.ts';
import { type AttemptAnswer, type NextStep, nextStep } from '../../../shared/alerts/delivery.ts';
import type { Notice } from '../../../shared/alerts/notice.ts';
import { requestFor } from '../../../shared/alerts/receivers.ts';
import type { TargetType } from '../../../shared/alerts/rule.ts';
import { send } from './send.ts';
import { ALLOW_TARGET_FIX, checkTarget, refusalText } from './targets.ts';

export interface DeliveryOptions {
  clock: () => number;
  /** How long one attempt may take before it counts as no answer. */
  timeoutMs: number;
  /** The first transient retry waits this long; each further one twice as long. */
  backoffBaseMs: number;
  /** `HOST[:PORT]` entries targets may reach despite an internal address (AppConfig.allowedTargets); default none. */
  allowedTargets?: readonly string[];
  /** The dashboard as people reach it (`serve --public-url`): pagers link to the rule there. */
  publicUrl?: string | null;
}

export const DELIVERY_DEFAULTS: DeliveryOptions = {
  clock: Date.now,
  timeoutMs: 10_000,
  backoffBaseMs: 5_000,
  allowedTargets: [],
};

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
  const target = { type: row.targetType as TargetType, url: row.targetUrl, routingKey: row.targetSecret };
  const request = requestFor(target, notice, { now: options.clock(), publicUrl: options.publicUrl ?? null });
  let answer: AttemptAnswer = { status: null, retryAfter: null };
  let error: string | null = null;
  let refusedByPolicy = false;
  // Judged again now, on the addresses the host resolves to now, and only those are connected to: a target that
  // passed when it was saved may point elsewhere since (DNS rebinding, a shortened allow-list). The lookup gets
  // half the attempt's timeout, so that lookup and send together end well within the lease.
  const checked = await checkTarget(request.url, options.allowedTargets ?? [], options.timeoutMs / 2);
  if (!checked.ok && checked.reason !== 'unresolved') {
    // Nothing was sent, and the log says only why: no address, port or socket error, so it answers no probing.
    refusedByPolicy = true;
    error =
      checked.reason === 'policy'
        ? `not sent: ${refusalText(checked.category)}. ${ALLOW_TARGET_FIX}`
        : 'not sent: the target is not an http:// or https:// URL';
  } else if (!checked.ok) {
    error = "the target's host name did not resolve";
  } else {
    try {
      const sent = await send(checked.url, checked.addresses, {
        headers: { 'content-type': 'application/json', 'user-agent': 'refusal-lens', 'idempotency-key': notice.key },
        body: JSON.stringify(request.body),
        timeoutMs: options.timeoutMs,
      });
      answer = { status: sent.status, retryAfter: sent.retryAfter };
      error = sent.status >= 200 && sent.status < 300 ? null : withoutSecret(sent.excerpt, row.targetSecret);
    } catch (failure) {
      error = describe(failure);
    }
  }
  const at = options.clock();
  const next: NextStep = refusedByPolicy
    ? { status: 'refused', outcome: 'refused', retryAt: null }
    : nextStep(answer, row, at, options.backoffBaseMs);
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

/**
 * A receiver's answer may quote the request it refused: the routing key never reaches the delivery log, also not
 * cut short at the excerpt's end. (Keys are letters, digits and `._+=-`: JSON quotes them as they are.)
 */
function withoutSecret(text: string | null, secret: string | null): string | null {
  if (text === null || secret === null) return text;
  const redacted = text.replaceAll(secret, '[routing key]');
  for (let length = secret.length - 1; length >= SECRET_TAIL_MIN; length--) {
    if (redacted.endsWith(secret.slice(0, length))) return `${redacted.slice(0, -length)}[routing key]`;
  }
  return redacted;
}

/** A shorter tail than this that matches the key's start is a coincidence, not a leak worth mangling the text for. */
const SECRET_TAIL_MIN = 6;

function describe(failure: unknown): string {
  if (failure instanceof Error) {
    if (failure.name === 'TimeoutError') return 'no answer within the timeout';
    return failure.cause instanceof Error ? failure.cause.message : failure.message;
  }
  return String(failure);
}
