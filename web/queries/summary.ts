import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import { type Scope, scopeQuery } from './scope.ts';

export const summaryKeys = {
  all: ['summary'] as const,
  list: (scope: Scope) => [...summaryKeys.all, scope] as const,
};

export function summaryQuery(scope: Scope) {
  return queryOptions({
    queryKey: summaryKeys.list(scope),
    queryFn: async () => unwrap(await api.summary.$get({ query: scopeQuery(scope) })),
  });
}

export type Summary = InferResponseType<typeof api.summary.$get, 200>;
