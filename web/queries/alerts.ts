import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { MAX_PREVIEW_MS, type RuleInput } from '../../shared/alerts/rule.ts';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import { resolveRange, type TimeRange } from '../time-range.ts';

export type AlertRule = InferResponseType<typeof api.alerts.rules.$get, 200>['rules'][number];
export type HistoryEntry = InferResponseType<typeof api.alerts.history.$get, 200>['history'][number];
export type Delivery = InferResponseType<typeof api.alerts.deliveries.$get, 200>['deliveries'][number];
export type Preview = InferResponseType<typeof api.alerts.rules.preview.$post, 200> & { from: number; to: number };

/** Alerts move on their own (the engine evaluates on a timer): their screens poll, whatever the refresh choice. */
const LIVE_MS = 5_000;

export const alertKeys = {
  all: ['alerts'] as const,
  rules: () => [...alertKeys.all, 'rules'] as const,
  rule: (id: string) => [...alertKeys.all, 'rule', id] as const,
  instances: (server: string | null) => [...alertKeys.all, 'instances', server] as const,
  history: () => [...alertKeys.all, 'history'] as const,
  deliveries: () => [...alertKeys.all, 'deliveries'] as const,
  preview: (body: unknown, range: TimeRange) => [...alertKeys.all, 'preview', body, range] as const,
};

export function rulesQuery() {
  return queryOptions({
    queryKey: alertKeys.rules(),
    queryFn: async () => unwrap(await api.alerts.rules.$get()),
    refetchInterval: LIVE_MS,
  });
}

export function ruleQuery(id: string) {
  return queryOptions({
    queryKey: alertKeys.rule(id),
    queryFn: async () => unwrap(await api.alerts.rules[':id'].$get({ param: { id } })),
  });
}

/** Pending and firing instances, all or those about one server. */
export function alertsQuery(server: string | null = null) {
  return queryOptions({
    queryKey: alertKeys.instances(server),
    queryFn: async () => unwrap(await api.alerts.$get({ query: server === null ? {} : { server } })),
    refetchInterval: LIVE_MS,
  });
}

export function historyQuery() {
  return queryOptions({
    queryKey: alertKeys.history(),
    queryFn: async () => unwrap(await api.alerts.history.$get({ query: { limit: '50' } })),
    refetchInterval: LIVE_MS,
  });
}

export function deliveriesQuery() {
  return queryOptions({
    queryKey: alertKeys.deliveries(),
    queryFn: async () => unwrap(await api.alerts.deliveries.$get({ query: { limit: '50' } })),
    refetchInterval: LIVE_MS,
  });
}

/**
 * What the rule would have done over the screen's range, or the week of it that a preview replays at most.
 * `rule` is sent as the form holds it: the API names any fault.
 */
export function previewQuery(rule: Record<string, unknown>, range: TimeRange) {
  return queryOptions({
    queryKey: alertKeys.preview(rule, range),
    queryFn: async (): Promise<Preview> => {
      const { to, ...window } = resolveRange(range, Date.now());
      const from = Math.max(window.from, to - MAX_PREVIEW_MS);
      const json = { rule: rule as unknown as RuleInput, from, to };
      return { ...(await unwrap(await api.alerts.rules.preview.$post({ json }))), from, to };
    },
    retry: false,
    staleTime: 60_000,
  });
}

export async function saveRule(id: string | null, rule: Record<string, unknown>) {
  const json = rule as unknown as RuleInput;
  if (id === null) return unwrap(await api.alerts.rules.$post({ json }));
  return unwrap(await api.alerts.rules[':id'].$put({ param: { id }, json }));
}

export async function deleteRule(id: string) {
  return unwrap(await api.alerts.rules[':id'].$delete({ param: { id } }));
}
