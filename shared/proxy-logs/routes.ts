import type { DiscoveryDocument } from '../discovery.ts';
import type { ProxyProtocol, ServerOf } from './common.ts';

/**
 * Which server an access-log line belongs to (DOMAIN.md section 9): the operator's routes first (host and/or path
 * prefix → server; a route naming the host wins, then the longest matching prefix), else the one server whose discovery document declares the
 * line's path. Every nginx.conf names its servers its own way, so the routes are the operator's, in a small file:
 *
 *     {"routes": [{"host": "desk.example", "server": "release-desk"},
 *                 {"pathPrefix": "/a2a/", "server": "relay-agent", "protocol": "a2a"}]}
 */
export interface ProxyRoute {
  /** The request's host, without port unless the route gives one; case does not matter. */
  host?: string;
  /** The start of the path (query excluded). */
  pathPrefix?: string;
  server: string;
  protocol?: ProxyProtocol;
}

export type ProxyMapResult = { ok: true; routes: ProxyRoute[] } | { ok: false; message: string };

const FIX = 'a route is {"host"?: "desk.example", "pathPrefix"?: "/mcp", "server": "NAME", "protocol"?: "mcp"|"a2a"}';

/** Reads `{"routes": [...]}` (or the bare array), naming the first entry that is no route. */
export function parseProxyMap(value: unknown): ProxyMapResult {
  const list = Array.isArray(value) ? value : isRecord(value) ? value.routes : undefined;
  if (!Array.isArray(list)) return { ok: false, message: `expected {"routes": [...]}; ${FIX}` };
  const routes: ProxyRoute[] = [];
  for (const [index, entry] of list.entries()) {
    const route = readRoute(entry);
    if (route === undefined) return { ok: false, message: `routes[${index}] is no route; ${FIX}` };
    routes.push(route);
  }
  return { ok: true, routes };
}

function readRoute(entry: unknown): ProxyRoute | undefined {
  if (!isRecord(entry) || typeof entry.server !== 'string' || entry.server.length === 0) return undefined;
  const route: ProxyRoute = { server: entry.server };
  for (const key of ['host', 'pathPrefix'] as const) {
    const text = entry[key];
    if (text === undefined) continue;
    if (typeof text !== 'string' || text.length === 0) return undefined;
    route[key] = key === 'host' ? text.toLowerCase() : text;
  }
  if (route.host === undefined && route.pathPrefix === undefined) return undefined;
  if (entry.protocol !== undefined) {
    if (entry.protocol !== 'mcp' && entry.protocol !== 'a2a') return undefined;
    route.protocol = entry.protocol;
  }
  return route;
}

/** A server's discovery document, as the store keeps it. */
export interface DeclaredServer {
  server: string;
  document: DiscoveryDocument;
}

/** The `serverOf` the readers take, from the operator's routes and the servers' declarations. */
export function serverOfRoutes(routes: readonly ProxyRoute[], declared: readonly DeclaredServer[]): ServerOf {
  const byPath = new Map<string, Set<string>>();
  for (const { server, document } of declared) {
    for (const { path } of document.endpoints) {
      const servers = byPath.get(path);
      if (servers === undefined) byPath.set(path, new Set([server]));
      else servers.add(server);
    }
  }
  return (host, rawPath) => {
    const path = rawPath === undefined ? undefined : stripQuery(rawPath);
    const route = bestRoute(routes, host?.toLowerCase(), path);
    if (route !== undefined) return route.protocol === undefined ? route.server : route;
    // Two servers declaring the same path (each behind its own host) cannot name the line by its path alone.
    const servers = path === undefined ? undefined : byPath.get(path);
    return servers?.size === 1 ? [...servers][0] : undefined;
  };
}

function bestRoute(routes: readonly ProxyRoute[], host: string | undefined, path: string | undefined) {
  let best: ProxyRoute | undefined;
  for (const route of routes) {
    if (route.host !== undefined && (host === undefined || !hostMatches(route.host, host))) continue;
    if (route.pathPrefix !== undefined && (path === undefined || !path.startsWith(route.pathPrefix))) continue;
    if (best === undefined || specificity(route) > specificity(best)) best = route;
  }
  return best;
}

/**
 * As nginx picks: a route naming the host and port, then the host, before any that does not; then the longest
 * prefix.
 */
function specificity(route: ProxyRoute): number {
  const host = route.host === undefined ? 0 : route.host.includes(':') ? 2 : 1;
  return host * HOST_FIRST + (route.pathPrefix?.length ?? 0);
}

/** Longer than any path a line can carry (shared/event.ts takes 4096 characters). */
const HOST_FIRST = 1_000_000;

/** `desk.example` matches `desk.example:8443`; a route naming a port matches only that port. */
function hostMatches(wanted: string, host: string): boolean {
  if (wanted === host) return true;
  return !wanted.includes(':') && host.startsWith(`${wanted}:`);
}

function stripQuery(path: string): string {
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
