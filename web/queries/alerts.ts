import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import type { RuleInput } from '../../shared/alerts/rule.ts';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';

export type AlertRule = InferResponseType<typeof api.alerts.rules.$get, 200>['rules'][number];
export type Delivery = InferResponseType<typeof api.alerts.deliveries.$get, 200>['deliveries'][number];
export type Preview = InferResponseType<typeof api.alerts.rules.preview.$post, 200>;

/** Alerts move on their own (the engine evaluates on a timer): their screens poll, whatever the refresh choice. */
const LIVE_MS = 5_000;

export const alertKeys = {
  all: ['alerts'] as const,
  rules: () => [...alertKeys.all, 'rules'] as const,
  rule: (id: string) => [...alertKeys.all, 'rule', id] as const,
  instances: (server: string | null) => [...alertKeys.all, 'instances', server] as const,
  history: () => [...alertKeys.all, 'history'] as const,
  deliveries: () => [...alertKeys.all, 'deliveries'] as const,
  preview: (body: unknown) => [...alertKeys.all, 'preview', body] as const,
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

/** What the rule would have done over the last day. `rule` is sent as the form holds it: the API names any fault. */
export function previewQuery(rule: Record<string, unknown>) {
  return queryOptions({
    queryKey: alertKeys.preview(rule),
    queryFn: async () => unwrap(await api.alerts.rules.preview.$post({ json: { rule: rule as unknown as RuleInput } })),
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
