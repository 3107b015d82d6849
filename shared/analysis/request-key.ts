import type { AnalysisEvent } from './types.ts';

/**
 * The request key (DOMAIN.md section 6): client + server + HTTP method + path + (identity, else JSON-RPC method).
 * Two attempts with one key are "the same request" for the gate and the storm detectors.
 *
 * The parts are joined as a JSON array, so no choice of names can make two different requests collide (a client
 * named `a:b` and one named `a` on server `b:…` stay apart). The identity and the method get a slot each, the
 * method's only filled when there is no identity: an identity string can then never be mistaken for a method.
 */
export function requestKey(
  e: Pick<AnalysisEvent, 'client' | 'server' | 'httpMethod' | 'httpPath' | 'identity' | 'rpcMethod'>,
): string {
  return JSON.stringify([
    e.client,
    e.server,
    e.httpMethod,
    pathOnly(e.httpPath),
    e.identity,
    e.identity === null ? e.rpcMethod : null,
  ]);
}

/**
 * The path without query string or fragment: `/mcp?session=1` and `/mcp` address the same endpoint, and a query
 * often carries a nonce that would make every attempt look new. A trailing slash is kept: `/mcp/a2a/` and
 * `/mcp/a2a` are different paths to a router (seed 000's prober tried both kinds).
 */
export function pathOnly(path: string | null): string | null {
  if (path === null) return null;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 63 /* ? */ || c === 35 /* # */) return path.slice(0, i);
  }
  return path;
}

/** `POST /mcp/sse` for display; the JSON-RPC method when the record has no HTTP part (e.g. an OTel span). */
export function endpointLabel(e: AnalysisEvent): string {
  const path = pathOnly(e.httpPath);
  if (path !== null) return e.httpMethod === null ? path : `${e.httpMethod} ${path}`;
  return e.rpcMethod ?? '(no method or path)';
}

/**
 * What a `not_declared` 404 or a 405 blocks: the endpoint, client + server + HTTP method + path, whatever the body.
 * Tagged first, so that it never equals a request key (whose first member is the client).
 */
export function endpointKey(e: AnalysisEvent): string {
  return JSON.stringify(['endpoint', e.client, e.server, e.httpMethod, pathOnly(e.httpPath)]);
}

/** What a -32601 blocks: that JSON-RPC method at that path, whatever the params; null without a method. */
export function methodKey(e: AnalysisEvent): string | null {
  if (e.rpcMethod === null) return null;
  return JSON.stringify(['method', e.client, e.server, pathOnly(e.httpPath), e.rpcMethod]);
}

/** An attempt's gate keys by role, each built once: the fold plans with them and the gate steps with them. */
export interface AttemptKeys {
  request: string;
  endpoint: string;
  method: string | null;
}

export function attemptKeys(e: AnalysisEvent): AttemptKeys {
  return { request: requestKey(e), endpoint: endpointKey(e), method: methodKey(e) };
}

/** Every gate key an attempt can be blocked under: its request key, its endpoint and its JSON-RPC method. */
export function gateKeysOf(e: AnalysisEvent): string[] {
  return keyList(attemptKeys(e));
}

/** The keys of `attemptKeys` as one list, the method's left out when there is none. */
export function keyList({ request, endpoint, method }: AttemptKeys): string[] {
  return method === null ? [request, endpoint] : [request, endpoint, method];
}
