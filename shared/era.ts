/**
 * The MCP era of a request (DOMAIN.md section 10): 2026-07-28 is stateless, every request carrying its protocol
 * version in `params._meta`; the 2025 revisions negotiate it once in `initialize` and keep a session. Logs hold both
 * for years, so every rule that differs between them reads the era of the request it judges.
 */
import { canonicalJsonOrNull } from './canonical-json.ts';
import type { LensEvent } from './event.ts';
import { columnText } from './frames.ts';

export const ERAS = ['2025', '2026'] as const;
export type Era = (typeof ERAS)[number];

/** The first protocol version of the stateless era. Versions are dates, so they compare as text. */
export const STATELESS_VERSION = '2026-07-28';

const VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';

/** The request's `params._meta` envelope (MCP 2026-07-28), when it has one. */
function metaOf(event: LensEvent): Record<string, unknown> | null {
  const params = event.request?.params;
  if (typeof params !== 'object' || params === null) return null;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : null;
}

/** The protocol version a request named: its `_meta`, else `initialize`'s, else the `MCP-Protocol-Version` header. */
export function protocolVersionOf(event: LensEvent): string | null {
  const params = event.request?.params;
  if (typeof params === 'object' && params !== null) {
    const version = columnText(metaOf(event)?.[VERSION_META]);
    if (version !== null) return version;
    if (event.request?.method === 'initialize') {
      const version = columnText((params as { protocolVersion?: unknown }).protocolVersion);
      if (version !== null) return version;
    }
  }
  return columnText(event.http?.protocolVersion);
}

/**
 * The era of an MCP request, from the record alone: its protocol version when it names one; a request frame without
 * the `_meta` envelope every 2026-07-28 request carries is 2025-era; so is a body-less GET or DELETE of an MCP path
 * (2026-07-28 has no stream and no session to end). Null for A2A, and where nothing tells (a proxy line of a POST
 * without the headers, a `/.well-known/` read).
 */
export function eraOf(event: LensEvent, version: string | null = protocolVersionOf(event)): Era | null {
  if (event.protocol !== 'mcp') return null;
  if (version !== null) return version >= STATELESS_VERSION ? '2026' : '2025';
  if (event.request !== undefined) return typeof event.request.method === 'string' ? '2025' : null;
  const method = event.http?.method?.toUpperCase();
  const path = event.http?.path ?? '';
  if ((method === 'GET' || method === 'DELETE') && !path.startsWith('/.well-known/')) return '2025';
  return null;
}

/** Whether a request is a round that answers an input request (MRTR): it carries `inputResponses` or `requestState`. */
export function isContinuation(event: LensEvent): boolean {
  const params = event.request?.params;
  if (typeof params !== 'object' || params === null) return false;
  const { inputResponses, requestState } = params as { inputResponses?: unknown; requestState?: unknown };
  return (typeof inputResponses === 'object' && inputResponses !== null) || typeof requestState === 'string';
}

/**
 * The client instance that sent a 2026-07-28 request: its `_meta` clientInfo (name, version, ...) as canonical JSON,
 * so that two encoders of one value agree. With no session, a client that restarted as other software (or another
 * version) shows itself only here (DOMAIN.md section 10, "in between"). Null where the request carries none.
 */
export function clientInstanceOf(event: LensEvent): string | null {
  const info = metaOf(event)?.[CLIENT_INFO_META];
  // One with no canonical form (a lone surrogate in a name) tells no instance apart: unknown, as if absent.
  return typeof info === 'object' && info !== null && !Array.isArray(info) ? canonicalJsonOrNull(info) : null;
}
