import { hash } from 'node:crypto';
import { canonicalJsonOrNull } from './canonical-json.ts';

/**
 * Request identity: `server:` + the first 32 hex digits of sha256 over the canonical JSON of what the request
 * asks for. Two requests with one identity are the same question, so retries and duplicates can be counted.
 */

/**
 * What a sampling request asks. maxTokens, temperature and stopSequences are left out on purpose: a client
 * that retries with a bigger budget or a new temperature is asking the same question again.
 */
export const SAMPLING_IDENTITY_FIELDS = ['systemPrompt', 'messages', 'includeContext', 'modelPreferences'] as const;
export const TOOLS_CALL_IDENTITY_FIELDS = ['name', 'arguments'] as const;
/**
 * A2A's message methods, v0.3 and v1.0 names. A2A requires a fresh `messageId` on every message, so the same message
 * sent again would never share an identity with it in: the id is left out (DOMAIN.md section 5).
 */
export const A2A_MESSAGE_METHODS: ReadonlySet<string> = new Set([
  'message/send',
  'message/stream',
  'SendMessage',
  'SendStreamingMessage',
]);

/** 128 bits: collisions stay out of reach at any log size, and the identity stays short enough to index and show. */
export const IDENTITY_DIGEST_HEX_CHARS = 32;

type Params = Readonly<Record<string, unknown>>;
const NO_PARAMS: Params = Object.freeze({});

export type Protocol = 'mcp' | 'a2a';

/** The value whose canonical JSON is hashed for a request with this method and params. */
export function identityPayload(method: string, params: unknown, protocol: Protocol = 'mcp'): unknown {
  const members = params === null || params === undefined ? NO_PARAMS : asParams(params);
  // Array or scalar params have none of the named members; keeping them whole stops them all sharing one identity.
  if (members !== undefined) {
    if (method === 'sampling/createMessage') return pick(members, SAMPLING_IDENTITY_FIELDS);
    if (method === 'tools/call') return pick(members, TOOLS_CALL_IDENTITY_FIELDS);
    if (protocol === 'a2a' && A2A_MESSAGE_METHODS.has(method)) return withoutMessageId(members);
    if (members === NO_PARAMS) return { method, params: null };
  }
  // _meta carries progress tokens and trace context, which differ on every send of the same request.
  return { method, params: members === undefined ? params : withoutMeta(members) };
}

/**
 * The identity of a request sent to `server`, or null when there is none to give: no string `method`, or
 * params that have no canonical JSON (a lone surrogate, nesting past the canonicalizer's depth cap).
 */
export function requestIdentity(
  server: string,
  request: { method?: unknown; params?: unknown } | null | undefined,
  protocol: Protocol = 'mcp',
): string | null {
  const method = request?.method;
  if (request === null || request === undefined || typeof method !== 'string') return null;
  const canonical = canonicalJsonOrNull(identityPayload(method, request.params, protocol));
  if (canonical === null) return null;
  return `${server}:${hash('sha256', canonical, 'hex').slice(0, IDENTITY_DIGEST_HEX_CHARS)}`;
}

/** Plain-object params, the one shape whose members can be picked; undefined for null, arrays and scalars. */
function asParams(params: unknown): Params | undefined {
  return typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as Params) : undefined;
}

function pick(params: Params, fields: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  // Absent and null mean the same to the receiver, so both hash as null.
  for (const field of fields) picked[field] = params[field] ?? null;
  return picked;
}

/** The params as sent, but for `message.messageId`: what the message says, not which send of it this was. */
function withoutMessageId(params: Params): Params {
  const message = params.message;
  if (
    typeof message !== 'object' ||
    message === null ||
    Array.isArray(message) ||
    !Object.hasOwn(message, 'messageId')
  ) {
    return params;
  }
  const rest = copyWithout(params, 'message');
  rest.message = copyWithout(message as Params, 'messageId');
  return rest;
}

function withoutMeta(params: Params): Params {
  return Object.hasOwn(params, '_meta') ? copyWithout(params, '_meta') : params;
}

function copyWithout(params: Params, left: string): Record<string, unknown> {
  // No prototype, so a member named "__proto__" (JSON.parse makes it an own member) is copied, not run as a setter.
  const rest: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(params)) if (key !== left) rest[key] = params[key];
  return rest;
}
