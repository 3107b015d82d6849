import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import { type Scope, scopeQuery } from './scope.ts';

export type IdentityRow = InferResponseType<typeof api.identities.$get, 200>['identities'][number];

export const identityKeys = {
  all: ['identities'] as const,
  list: (scope: Scope, limit: number) => [...identityKeys.all, 'list', scope, limit] as const,
};

/** The `limit` most re-presented identities, each with its alarms (seed 002: 40 in 10 minutes). */
export function identitiesQuery(scope: Scope, limit = 20) {
  return queryOptions({
    queryKey: identityKeys.list(scope, limit),
    queryFn: async () => unwrap(await api.identities.$get({ query: { ...scopeQuery(scope), limit: String(limit) } })),
  });
}
