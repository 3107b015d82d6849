import { declaredServers } from '../../db/queries/servers.ts';
import type { SqlRunner } from '../../db/runner.ts';
import type { DiscoveryDocument } from '../../shared/discovery.ts';
import type { ServerOf } from '../../shared/proxy-logs/index.ts';
import { type ProxyRoute, serverOfRoutes } from '../../shared/proxy-logs/routes.ts';

/**
 * Names the server of each access-log line: the operator's routes (`--proxy-map`), else the one server whose
 * discovery document, as stored now, declares the line's path.
 */
export async function proxyServerOf(db: SqlRunner, routes: readonly ProxyRoute[]): Promise<ServerOf> {
  const declared = (await declaredServers(db)).map(({ name, discovery }) => ({
    server: name,
    document: JSON.parse(discovery) as DiscoveryDocument,
  }));
  return serverOfRoutes(routes, declared);
}
