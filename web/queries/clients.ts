import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import { type Scope, scopeQuery } from './scope.ts';

export type ClientConduct = InferResponseType<typeof api.clients.$get, 200>['clients'][number];

export const clientKeys = {
  all: ['clients'] as const,
  list: (scope: Scope) => [...clientKeys.all, scope] as const,
};

export function clientsQuery(scope: Scope) {
  return queryOptions({
    queryKey: clientKeys.list(scope),
    queryFn: async () => unwrap(await api.clients.$get({ query: scopeQuery(scope) })),
  });
}
