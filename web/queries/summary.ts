import { queryOptions } from '@tanstack/react-query';
import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';

export interface SummaryFilters {
  from?: string;
  to?: string;
  server?: string;
}

export const summaryKeys = {
  all: ['summary'] as const,
  list: (filters: SummaryFilters) => [...summaryKeys.all, filters] as const,
};

export function summaryQuery(filters: SummaryFilters) {
  return queryOptions({
    queryKey: summaryKeys.list(filters),
    queryFn: async () => unwrap(await api.summary.$get({ query: filters })),
  });
}
