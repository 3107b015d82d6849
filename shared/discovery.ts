/**
 * Discovery documents: what a server declares (DOMAIN.md section 3). Three shapes are accepted and normalised to
 * one: an A2A Agent Card (v0.3 `url` / `additionalInterfaces`, v1.0 `supportedInterfaces`), an MCP server card
 * (`remotes[]`) and the plain `{"endpoints":[{"method","path"}],"methods":[...]}`.
 */

export type DiscoveryFormat = 'a2a-agent-card' | 'mcp-server-card' | 'plain';

export interface DeclaredEndpoint {
  /** Upper-case HTTP method; absent when the document declares the path for any method. */
  method?: string;
  path: string;
}

export interface DiscoveryDocument {
  format: DiscoveryFormat;
  endpoints: DeclaredEndpoint[];
  /** Declared JSON-RPC methods, where the document lists them. */
  methods: string[];
}

export interface DiscoveryError {
  code: 'unrecognised_document' | 'invalid_document';
  message: string;
  fix: string;
}

export type DiscoveryResult = { ok: true; document: DiscoveryDocument } | { ok: false; error: DiscoveryError };

const FIX =
  'Send an A2A Agent Card (with "url", "additionalInterfaces" or "supportedInterfaces"), an MCP server card ' +
  '(with "remotes"), or {"endpoints":[{"method":"POST","path":"/mcp"}],"methods":["tools/call"]}.';

export function parseDiscovery(input: unknown): DiscoveryResult {
  if (!isRecord(input)) return invalid('unrecognised_document', 'a discovery document must be a JSON object');
  if (Array.isArray(input.endpoints)) return parsePlain(input);
  if (Array.isArray(input.remotes)) return parseServerCard(input.remotes);
  if (Array.isArray(input.supportedInterfaces) || typeof input.url === 'string') return parseAgentCard(input);
  return invalid('unrecognised_document', 'not an A2A Agent Card, an MCP server card or a plain declaration');
}

/**
 * "Declared" means the method and path pair where the document lists methods for that path, and the path alone
 * where it lists only the path (DOMAIN.md section 3). The query string is not part of the path.
 */
export function isDeclared(document: DiscoveryDocument, method: string | undefined, rawPath: string): boolean {
  const path = stripQuery(rawPath);
  const wanted = method?.toUpperCase();
  let pathListed = false;
  for (const endpoint of document.endpoints) {
    if (endpoint.path !== path) continue;
    if (endpoint.method === undefined || endpoint.method === wanted) return true;
    pathListed = true;
  }
  return pathListed && wanted === undefined;
}

function parsePlain(input: Record<string, unknown>): DiscoveryResult {
  const endpoints: DeclaredEndpoint[] = [];
  const list = input.endpoints as unknown[];
  for (const [index, entry] of list.entries()) {
    if (!isRecord(entry) || typeof entry.path !== 'string' || !entry.path.startsWith('/')) {
      return invalid('invalid_document', `endpoints[${index}] needs a "path" that starts with "/"`);
    }
    if (entry.method !== undefined && (typeof entry.method !== 'string' || entry.method.length === 0)) {
      return invalid('invalid_document', `endpoints[${index}].method must be an HTTP method such as "POST"`);
    }
    endpoints.push(endpoint(entry.path, entry.method));
  }
  const methods = input.methods ?? [];
  if (!Array.isArray(methods) || !methods.every((m) => typeof m === 'string')) {
    return invalid('invalid_document', '"methods" must be a list of JSON-RPC method names');
  }
  return { ok: true, document: { format: 'plain', endpoints, methods: [...methods] } };
}

function parseServerCard(remotes: unknown[]): DiscoveryResult {
  const endpoints: DeclaredEndpoint[] = [];
  for (const [index, remote] of remotes.entries()) {
    const path = isRecord(remote) ? pathOf(remote.url) : null;
    if (path === null) return invalid('invalid_document', `remotes[${index}] needs an absolute "url"`);
    endpoints.push(endpoint(path));
  }
  return { ok: true, document: { format: 'mcp-server-card', endpoints, methods: [] } };
}

function parseAgentCard(card: Record<string, unknown>): DiscoveryResult {
  const urls: unknown[] = [];
  if (card.url !== undefined) urls.push(card.url);
  for (const field of ['additionalInterfaces', 'supportedInterfaces'] as const) {
    const list = card[field];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return invalid('invalid_document', `"${field}" must be a list of interfaces`);
    for (const item of list) urls.push(isRecord(item) ? item.url : undefined);
  }
  const endpoints: DeclaredEndpoint[] = [];
  for (const url of urls) {
    const path = pathOf(url);
    if (path === null) return invalid('invalid_document', 'every agent interface needs an absolute "url"');
    if (!endpoints.some((e) => e.path === path)) endpoints.push(endpoint(path));
  }
  // The card itself is part of the contract: it is what a client is told to read first.
  for (const wellKnown of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
    endpoints.push(endpoint(wellKnown, 'GET'));
  }
  return { ok: true, document: { format: 'a2a-agent-card', endpoints, methods: [] } };
}

function endpoint(path: string, method?: unknown): DeclaredEndpoint {
  const clean = stripQuery(path);
  return typeof method === 'string' ? { method: method.toUpperCase(), path: clean } : { path: clean };
}

function pathOf(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  try {
    return new URL(url).pathname;
  } catch {
    return null;
  }
}

function stripQuery(path: string): string {
  const cut = path.search(/[?#]/);
  return cut === -1 ? path : path.slice(0, cut);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(code: DiscoveryError['code'], message: string): DiscoveryResult {
  return { ok: false, error: { code, message, fix: FIX } };
}
