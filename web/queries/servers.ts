import { queryOptions } from '@tanstack/react-query';
import type { InferResponseType } from 'hono/client';
import { api } from '../api.ts';
import type { TableDownload } from '../download.ts';
import type { OverridesBody } from '../prepare/overrides.ts';
import { unwrap } from '../query-client.ts';
import type { TimeRange } from '../time-range.ts';
import { type Scope, scopeQuery } from './scope.ts';

export type ServerRow = InferResponseType<typeof api.servers.$get, 200>['servers'][number];
export type ServerDetail = InferResponseType<(typeof api.servers)[':server']['$get'], 200>;
export type DiscoveryChange = InferResponseType<(typeof api.servers)[':server']['discovery']['$put'], 200>;
export type OverridesChange = InferResponseType<(typeof api.servers)[':server']['overrides']['$put'], 200>;
export type CodeCount = ServerDetail['codes'][number];

export const serverKeys = {
  all: ['servers'] as const,
  list: (scope: Scope) => [...serverKeys.all, 'list', scope] as const,
  detail: (server: string, range: TimeRange) => [...serverKeys.all, 'detail', server, range] as const,
};

export function serversQuery(scope: Scope) {
  return queryOptions({
    queryKey: serverKeys.list(scope),
    queryFn: async () => unwrap(await api.servers.$get({ query: scopeQuery(scope) })),
  });
}

export function serverQuery(server: string, range: TimeRange) {
  return queryOptions({
    queryKey: serverKeys.detail(server, range),
    queryFn: async () => unwrap(await api.servers[':server'].$get({ param: { server }, query: scopeQuery({ range }) })),
  });
}

/**
 * What the server page's tables download as: the rows its drill-down lists (api/services/analysis/server-detail.ts),
 * every storm of the range rather than the newest 200, and the same ten identities.
 */
export function serverTableDownloads(server: string, range: TimeRange): Record<'storms' | 'identities', TableDownload> {
  const query = scopeQuery({ range, server });
  return {
    storms: { path: 'storms', query: { ...query, sort: 'newest' } },
    identities: { path: 'identities', query: { ...query, limit: '10' } },
  };
}

/** Replaces the server's discovery document; the answer says how many stored events changed bucket. */
export async function putDiscovery(server: string, document: unknown): Promise<DiscoveryChange> {
  return unwrap(await api.servers[':server'].discovery.$put({ param: { server }, json: document }));
}

/** Replaces the server's code overrides; the answer says how many stored events changed bucket. */
export async function putOverrides(server: string, body: OverridesBody): Promise<OverridesChange> {
  return unwrap(await api.servers[':server'].overrides.$put({ param: { server }, json: body }));
}
