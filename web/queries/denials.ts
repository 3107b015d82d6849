import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import { type Scope, scopeQuery } from './scope.ts';

export type DenialsAnswer = InferResponseType<typeof api.denials.$get, 200>;
export type DenialNotHeld = DenialsAnswer['items'][number];

export const denialKeys = {
  all: ['denials'] as const,
  list: (scope: Scope) => [...denialKeys.all, scope] as const,
};

export function denialsQuery(scope: Scope) {
  return queryOptions({
    queryKey: denialKeys.list(scope),
    queryFn: async () => unwrap(await api.denials.$get({ query: scopeQuery(scope) })),
  });
}
