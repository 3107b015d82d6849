import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';
import { type Scope, scopeQuery } from './scope.ts';

export type Timeseries = InferResponseType<typeof api.timeseries.$get, 200>;

export const timeseriesKeys = {
  all: ['timeseries'] as const,
  list: (scope: Scope) => [...timeseriesKeys.all, scope] as const,
};

export function timeseriesQuery(scope: Scope) {
  return queryOptions({
    queryKey: timeseriesKeys.list(scope),
    queryFn: async () => unwrap(await api.timeseries.$get({ query: scopeQuery(scope) })),
  });
}
