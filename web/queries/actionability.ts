import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import { type Scope, scopeQuery } from './scope.ts';

export type Actionability = InferResponseType<typeof api.actionability.$get, 200>;
export type ServerActionability = Actionability['servers'][number];
export type ViewCounts = Actionability['control'];

export const actionabilityKeys = {
  all: ['actionability'] as const,
  list: (scope: Omit<Scope, 'client'>) => [...actionabilityKeys.all, scope] as const,
};

export function actionabilityQuery(scope: Omit<Scope, 'client'>) {
  return queryOptions({
    queryKey: actionabilityKeys.list(scope),
    queryFn: async () => unwrap(await api.actionability.$get({ query: scopeQuery(scope) })),
  });
}
