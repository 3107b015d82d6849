import type { Frame } from '../event.ts';
import type { FrameSummary } from './top-level.ts';

/** What the recorder keeps of one JSON-RPC message: the frame untouched, or the summary of one too large to keep. */
export type Kept = { frame: Frame } | { omitted: FrameSummary };

export type RpcId = string | number;

/** One JSON-RPC message as the pairing reads it. */
export type Message =
  | { kind: 'request'; id: RpcId; method: string; kept: Kept }
  | { kind: 'notification'; method: string; kept: Kept }
  | { kind: 'response'; id: RpcId; kept: Kept }
  /** Valid JSON that is no JSON-RPC message (a response without an id, an object of some other protocol). */
  | { kind: 'other'; kept: Kept };

/**
 * The messages of one line of a stream: one, or several for a JSON-RPC batch (an array, which MCP 2025-03-26
 * allowed). Null when the line is not JSON at all: a peer that writes something else to its stdout.
 */
export function messagesOf(text: string): Message[] | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const frames = Array.isArray(value) ? value : [value];
  if (!frames.every(isFrame)) return null;
  return frames.map((frame) => messageOf({ frame }, frame.id, frame.method, 'result' in frame || 'error' in frame));
}

/** What a frame too large to keep still says: its id, its method, whether it answers. */
export function summarisedMessage(summary: FrameSummary): Message {
  const answers = summary.members.includes('result') || summary.members.includes('error');
  return messageOf({ omitted: summary }, summary.id, summary.method, answers);
}

/** One frame already decoded (a host log's frame, read from its own syntax) as the pairing reads it. */
export function frameMessage(frame: Frame): Message {
  return messageOf({ frame }, frame.id, frame.method, 'result' in frame || 'error' in frame);
}

function messageOf(kept: Kept, id: unknown, method: unknown, answers: boolean): Message {
  const hasId = typeof id === 'string' || typeof id === 'number';
  if (typeof method === 'string') {
    return hasId ? { kind: 'request', id, method, kept } : { kind: 'notification', method, kept };
  }
  return hasId && answers ? { kind: 'response', id, kept } : { kind: 'other', kept };
}

function isFrame(value: unknown): value is Frame {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request a `notifications/cancelled` names, and why (MCP: `params.requestId`, `params.reason`). */
export function cancelledRequest(kept: Kept): { id: RpcId; reason: string | null } | null {
  if (!('frame' in kept)) return null;
  const params = kept.frame.params;
  if (typeof params !== 'object' || params === null) return null;
  const { requestId, reason } = params as { requestId?: unknown; reason?: unknown };
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return null;
  return { id: requestId, reason: typeof reason === 'string' ? reason : null };
}

/** The host's name as its first request gives it: `initialize`'s `clientInfo`, or MCP 2026-07-28's `_meta`. */
export function clientNameOf(kept: Kept): string | null {
  if (!('frame' in kept)) return null;
  const params = kept.frame.params;
  if (typeof params !== 'object' || params === null) return null;
  const { clientInfo, _meta } = params as { clientInfo?: unknown; _meta?: unknown };
  const info =
    clientInfo ??
    (typeof _meta === 'object' && _meta !== null
      ? (_meta as Record<string, unknown>)['io.modelcontextprotocol/clientInfo']
      : undefined);
  if (typeof info !== 'object' || info === null) return null;
  const name = (info as { name?: unknown }).name;
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : null;
}
