import type { Bucket } from '../classify/types.ts';
import type { Era } from '../era.ts';

/**
 * What the traffic analyses (gate replay, retry loops, probe storms, re-presentations, context gap, client conduct)
 * need to know of one stored event. Built from a classified event by `toAnalysisEvent`; everything here is pure data.
 */
export interface AnalysisEvent {
  /** The stored event id (producer id or line digest). */
  id: string;
  /** Epoch milliseconds. */
  ts: number;
  /** Arrival order, the tie-breaker between events with the same `ts`. */
  seq: number;
  source: 'client' | 'proxy';
  protocol: 'mcp' | 'a2a';
  client: string | null;
  server: string;
  session: string | null;
  httpMethod: string | null;
  httpPath: string | null;
  httpStatus: number | null;
  rpcMethod: string | null;
  /** What the method names: a tool call's tool, a prompt's name, a read resource's URI (`Mcp-Name`, section 10). */
  rpcName: string | null;
  rpcCode: number | null;
  /** Whether the record carries an answer frame; null where the store cannot tell (rows stored before frames). */
  answered: boolean | null;
  latencyMs: number | null;
  /** Request identity (DOMAIN.md section 5), or null when the event carries no request frame. */
  identity: string | null;
  bucket: Bucket;
  kind: string;
  rule: string;
  /**
   * Epoch ms until which the answer stands (shared/analysis/from-event.ts waitUntilFor). For a throttled answer:
   * before it the client should not send to this server again (`http.retryAfter`, `error.data.resetsAt`, the TTL of
   * `error.data.reason`). For a refusal: when its block lapses (`resetsAt`, the TTL). Null: no time named.
   */
  waitUntil: number | null;
  discoveryRead: boolean | null;
  /** False for a proxy record shadowed by the client's record of the same request. */
  counted: boolean;
  /**
   * The MCP era the request was sent in (DOMAIN.md section 10): `2026` for a 2026-07-28 request, `2025` for the
   * session era, null where the record cannot tell (shared/era.ts).
   */
  era: Era | null;
  /** The protocol version the request named (its `_meta`, the `MCP-Protocol-Version` header, `initialize`). */
  protocolVersion: string | null;
  /** An MRTR round that answers an input request (`inputResponses` / `requestState`): part of its call. */
  continuation: boolean;
  /**
   * The client instance of a 2026-07-28 request (shared/era.ts clientInstanceOf), where the event was read from its
   * frames; the store keeps no column of it (db/queries/denials.ts reads it from the stored line when it asks).
   */
  clientInstance?: string | null;
  /**
   * What the server asked inside this round's `input_required` answer (shared/mrtr.ts inputRequestsOf), each a send of
   * its own identity (DOMAIN.md section 10), where the event was read from its frames; the store keeps them in
   * input_requests (db/schema/input-requests.ts).
   */
  asked?: readonly { identity: string; method: string }[];
  /** Sampling context (DOMAIN.md section 7); null for anything that is not `sampling/createMessage`. */
  context: ContextObservation | null;
}

export type ContextScope = 'none' | 'thisServer' | 'allServers';

export interface ContextObservation {
  /** From the request's `includeContext`; absent means `none`. */
  requested: ContextScope;
  /** From the response's `result._meta.context.applied`; null when the response did not say ("not reported"). */
  applied: ContextScope | null;
  /** `result._meta.context.reason`, when given. */
  reason: string | null;
}
