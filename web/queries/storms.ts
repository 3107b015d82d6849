import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import { type Scope, scopeQuery } from './scope.ts';

export type StormSummary = InferResponseType<typeof api.storms.$get, 200>['storms'][number];
export type StormDetail = InferResponseType<(typeof api.storms)[':id']['$get'], 200>;
export type StormAttempt = StormDetail['timeline'][number];

export const stormKeys = {
  all: ['storms'] as const,
  list: (scope: Scope) => [...stormKeys.all, 'list', scope] as const,
  detail: (id: string) => [...stormKeys.all, 'detail', id] as const,
};

/** How many storms the overview shows: the worst first, as the API ranks them. */
export const RANKED_STORMS = 6;

/** The range's storms that most need a look (active first, then the most avoidable), with how many there are. */
export function rankedStormsQuery(scope: Scope) {
  return queryOptions({
    queryKey: stormKeys.list(scope),
    queryFn: async () =>
      unwrap(await api.storms.$get({ query: { ...scopeQuery(scope), sort: 'rank', limit: String(RANKED_STORMS) } })),
  });
}

/** One storm with its attempt timeline; the id carries where to find it, so it does not depend on the range. */
export function stormQuery(id: string) {
  return queryOptions({
    queryKey: stormKeys.detail(id),
    queryFn: async () => unwrap(await api.storms[':id'].$get({ param: { id }, query: {} })),
  });
}
