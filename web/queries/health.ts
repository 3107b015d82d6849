import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import { readBehindAnalysis, SETTLE_CHECK_MS, settleAnalysis, unwrap } from '../query-client.ts';

export type Health = InferResponseType<typeof api.health.$get, 200>;

/** The analysis lag moves on its own (the replay loop works behind the commit): polled whatever the refresh choice. */
const LIVE_MS = 5_000;

export function healthQuery() {
  return queryOptions({
    queryKey: ['health'] as const,
    queryFn: async () => {
      const health = await unwrap(await api.health.$get());
      settleAnalysis(health.analysis.lagMs);
      return health;
    },
    refetchInterval: () => (readBehindAnalysis() ? SETTLE_CHECK_MS : LIVE_MS),
  });
}
