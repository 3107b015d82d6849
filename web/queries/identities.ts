import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import { type Scope, scopeQuery } from './scope.ts';

export type IdentityRow = InferResponseType<typeof api.identities.$get, 200>['identities'][number];

export const identityKeys = {
  all: ['identities'] as const,
  alarmed: (scope: Scope, limit: number) => [...identityKeys.all, 'alarmed', scope, limit] as const,
};

/** The `limit` identities most over the re-presentation alarm (seed 002: 40 in 10 minutes), densest first. */
export function alarmedIdentitiesQuery(scope: Scope, limit = 20) {
  return queryOptions({
    queryKey: identityKeys.alarmed(scope, limit),
    queryFn: async () => {
      const body = await unwrap(
        await api.identities.$get({ query: { ...scopeQuery(scope), limit: String(limit), only: 'alarmed' } }),
      );
      // The route answers either list; the alarmed one always says how many are over the alarm in all.
      const total = 'total' in body ? body.total : undefined;
      return { identities: body.identities, total: typeof total === 'number' ? total : body.identities.length };
    },
  });
}
