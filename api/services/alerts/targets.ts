import { randomUUID } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import {
  BLOCKED_TEXT,
  type BlockedCategory,
  judgeTarget,
  parseAllowList,
} from '../../../shared/alerts/address-policy.ts';
import { type RuleInput, type StoredTarget, targetSecrets } from '../../../shared/alerts/rule.ts';
import { ServiceError } from '../service-error.ts';

/** What may be connected to for one target URL, judged on the addresses its host resolves to right now. */
export type TargetCheck =
  | { ok: true; url: URL; addresses: LookupAddress[] }
  | { ok: false; reason: 'policy'; category: BlockedCategory }
  | { ok: false; reason: 'unresolved' }
  | { ok: false; reason: 'invalid' };

/**
 * Resolves the target's host (every address: a name with one public and one private answer is refused) and judges
 * the answer by the address policy and the operator's allow-list. A caller that goes on to connect must connect to
 * one of `addresses`, never resolve again: a second answer could be another (DNS rebinding).
 */
export async function checkTarget(
  raw: string,
  allowTargets: readonly string[],
  lookupTimeoutMs = LOOKUP_TIMEOUT_MS,
): Promise<TargetCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'invalid' };
  const host = bareHost(url.hostname);
  let addresses: LookupAddress[];
  const family = isIP(host);
  if (family !== 0) {
    addresses = [{ address: host, family }];
  } else {
    try {
      addresses = await withTimeout(lookup(host, { all: true, verbatim: true }), lookupTimeoutMs);
    } catch {
      return { ok: false, reason: 'unresolved' };
    }
    if (addresses.length === 0) return { ok: false, reason: 'unresolved' };
  }
  const verdict = judgeTarget({
    host,
    port: portOf(url),
    addresses: addresses.map((a) => a.address),
    allow: parseAllowList(allowTargets).entries,
    own: ownAddresses(),
  });
  return verdict.allowed ? { ok: true, url, addresses } : { ok: false, reason: 'policy', category: verdict.category };
}

/** A resolver that does not answer must not hold a save, or a delivery past its lease. */
const LOOKUP_TIMEOUT_MS = 5_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the host name did not resolve in time')), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The words for a refused target, the same at save and at delivery: the kind of address, never the address. */
export function refusalText(category: BlockedCategory): string {
  return `the target resolves to ${BLOCKED_TEXT[category]}, which alert targets may not reach`;
}

export const ALLOW_TARGET_FIX =
  'Use a receiver on a public address, or start the server with --allow-target HOST[:PORT] (or LENS_ALLOW_TARGETS) naming it.';

/**
 * The targets of a rule being saved, each with its secrets: a target sent with only its `id` keeps the URL (and a
 * PagerDuty target its routing key) saved under that id; a new PagerDuty target without a URL goes to PagerDuty's
 * events URL. Every URL is checked against the address policy now; the deliverer checks it again before each send.
 */
export async function settleTargets(
  sent: RuleInput['targets'],
  saved: readonly StoredTarget[],
  allowTargets: readonly string[],
): Promise<StoredTarget[]> {
  const settled: StoredTarget[] = [];
  for (const [index, target] of sent.entries()) {
    const field = `targets.${index}.url`;
    const kept = target.id === undefined ? undefined : saved.find((s) => s.id === target.id);
    const { url, routingKey, keyLeftBehind } = targetSecrets(target, kept);
    if (url === undefined) {
      throw new ServiceError('invalid_request', `"${field}": required for a new target`, {
        field,
        fix: 'Give the target URL; an "id" without a "url" keeps the URL of a target this rule already has.',
      });
    }
    if (keyLeftBehind) {
      throw new ServiceError('secret_required', `"targets.${index}.routingKey": required again for a changed URL`, {
        field: `targets.${index}.routingKey`,
        fix: 'Send the routing key with the new URL: a saved key is only ever sent to the URL it was saved with.',
      });
    }
    if (target.type === 'pagerduty' && routingKey === undefined) {
      throw new ServiceError('invalid_request', `"targets.${index}.routingKey": required for a pagerduty target`, {
        field: `targets.${index}.routingKey`,
        fix: 'Give the Integration Key of the PagerDuty service\'s Events API v2 integration as "routingKey".',
      });
    }
    const check = await checkTarget(url, allowTargets);
    if (!check.ok) throw refusedTarget(check, field);
    const id = kept === undefined ? newTargetId() : kept.id;
    if (settled.some((s) => s.id === id)) {
      throw new ServiceError('invalid_request', `"targets.${index}.id": names a target already given`, {
        field: `targets.${index}.id`,
        fix: 'Send each saved target once.',
      });
    }
    settled.push({ id, type: target.type, url, ...(routingKey !== undefined && { routingKey }) });
  }
  return settled;
}

function refusedTarget(check: Exclude<TargetCheck, { ok: true }>, field: string): ServiceError {
  if (check.reason === 'policy') {
    return new ServiceError('invalid_request', `"${field}": ${refusalText(check.category)}`, {
      field,
      fix: ALLOW_TARGET_FIX,
    });
  }
  if (check.reason === 'unresolved') {
    return new ServiceError('invalid_request', `"${field}": the target's host name does not resolve`, {
      field,
      fix: 'Check the host name of the URL.',
    });
  }
  return new ServiceError('invalid_request', `"${field}": must be an http:// or https:// URL`, {
    field,
    fix: 'Correct the body and send the request again.',
  });
}

export function newTargetId(): string {
  return randomUUID();
}

/** `[::1]` as URL.hostname spells it is `::1` to the resolver and the socket. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** Every address of this machine's interfaces: a target there is the server itself (its own ingest URL). */
function ownAddresses(): string[] {
  try {
    return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((info) => info.address));
  } catch {
    return []; // some sandboxes refuse to list interfaces; loopback and private addresses are refused anyway
  }
}
