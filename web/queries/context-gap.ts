import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import { type Scope, scopeQuery } from './scope.ts';

export type ContextGap = InferResponseType<(typeof api)['context-gap']['$get'], 200>['servers'][number];

export const contextGapKeys = {
  all: ['context-gap'] as const,
  list: (scope: Scope) => [...contextGapKeys.all, scope] as const,
};

export function contextGapQuery(scope: Scope) {
  return queryOptions({
    queryKey: contextGapKeys.list(scope),
    queryFn: async () => unwrap(await api['context-gap'].$get({ query: scopeQuery(scope) })),
  });
}
