import { listInstanceRows } from '../../../db/queries/alerts.ts';
import type { Store } from '../../../db/runner.ts';
import { noticeFacts } from '../../../shared/alerts/notice.ts';
import {
  ALERTMANAGER_RESOLVED_RESEND_MS,
  alertmanagerAlert,
  alertmanagerEndpoint,
  dashboardLink,
} from '../../../shared/alerts/receivers.ts';
import { targetHost } from '../../../shared/alerts/rule.ts';
import { type Severity, thresholdOf } from '../../../shared/alerts/state.ts';
import type { DeliveryOptions } from './deliver.ts';
import { listRules } from './rules.ts';
import { send } from './send.ts';
import { checkTarget, refusalText } from './targets.ts';

/** Alertmanager takes any number of alerts in a POST; bounded bodies keep a round's requests small. */
const ALERTS_PER_POST = 500;

/**
 * Tells every Alertmanager target again what is firing, and what resolved in the last five minutes: Alertmanager
 * ends an alert at its `endsAt` unless told again, and forgets everything when it restarts ("Expectations from
 * clients" in its Alerts API documentation). Each endpoint gets one POST per round (per 500 alerts) for all the
 * rules that name it. Best effort, outside the outbox and its log: the next round sends the same again, so a
 * failure is only logged (with the receiver's host: the URL is a secret). Transitions go through the outbox.
 */
export async function resendToAlertmanagers(
  store: Store,
  options: DeliveryOptions,
  log: (message: string) => void,
): Promise<number> {
  const now = options.clock();
  const rules = (await listRules(store)).filter((rule) => rule.targets.some((t) => t.type === 'alertmanager'));
  if (rules.length === 0) return 0;
  const instances = await listInstanceRows(store, { includeResolved: true });
  const batches = new Map<string, unknown[]>();
  for (const rule of rules) {
    const alerts = instances
      .filter((row) => row.ruleId === rule.id)
      .filter(
        (row) =>
          row.state === 'firing' || (row.state === 'resolved' && now - row.since < ALERTMANAGER_RESOLVED_RESEND_MS),
      )
      .map((row) => {
        const severity = row.severity as Severity | null;
        const threshold = thresholdOf(rule, severity);
        const facts = noticeFacts({
          rule,
          group: row.groupKey,
          server: row.server,
          to: row.state === 'firing' ? 'firing' : 'resolved',
          severity,
          value: row.value,
          threshold: row.state === 'resolved' ? (rule.resolveThreshold ?? threshold) : threshold,
          at: row.since,
        });
        return alertmanagerAlert(facts, now, dashboardLink(options.publicUrl ?? null, facts.path));
      });
    if (alerts.length === 0) continue;
    const endpoints = new Set(rule.targets.filter((t) => t.type === 'alertmanager').map((t) => t.url));
    for (const url of endpoints) {
      const endpoint = alertmanagerEndpoint(url);
      batches.set(endpoint, [...(batches.get(endpoint) ?? []), ...alerts]);
    }
  }
  const posts = [...batches].flatMap(([endpoint, alerts]) => {
    const chunks: unknown[][] = [];
    for (let start = 0; start < alerts.length; start += ALERTS_PER_POST) {
      chunks.push(alerts.slice(start, start + ALERTS_PER_POST));
    }
    return chunks.map(async (chunk) => {
      const failure = await post(endpoint, chunk, options);
      if (failure !== null) log(`re-sending alerts to the Alertmanager at ${targetHost(endpoint)} failed: ${failure}`);
    });
  });
  await Promise.allSettled(posts);
  return [...batches.values()].reduce((sum, alerts) => sum + alerts.length, 0);
}

/** One POST under the address policy, as the deliverer sends; answers why it failed, or null. */
async function post(endpoint: string, alerts: unknown[], options: DeliveryOptions): Promise<string | null> {
  const checked = await checkTarget(endpoint, options.allowedTargets ?? [], options.timeoutMs / 2);
  if (!checked.ok) {
    return checked.reason === 'policy' ? `not sent: ${refusalText(checked.category)}` : `not sent: ${checked.reason}`;
  }
  try {
    const answer = await send(checked.url, checked.addresses, {
      headers: { 'content-type': 'application/json', 'user-agent': 'refusal-lens' },
      body: JSON.stringify(alerts),
      timeoutMs: options.timeoutMs,
    });
    return answer.status >= 200 && answer.status < 300 ? null : `HTTP ${answer.status}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
