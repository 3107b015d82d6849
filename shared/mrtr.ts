import { SCOPES } from './analysis/context-gap.ts';
import type { ContextObservation, ContextScope } from './analysis/types.ts';
import { columnText } from './frames.ts';
import { requestIdentity } from './identity.ts';

/**
 * MCP 2026-07-28's multi round-trip requests (DOMAIN.md section 10): sampling and elicitation ride inside a call's
 * rounds. The server's request sits in an `input_required` result's `inputRequests`, keyed by a name it chooses; the
 * client's answer comes back under that name in the next round's `params.inputResponses`.
 */

/** One request a server made inside a result: the server is its sender (section 6's conduct is the server's). */
export interface InputRequest {
  key: string;
  method: string;
  sender: 'server';
  /** Section 5's identity of what the server asked, as if it had been sent on its own. */
  identity: string | null;
  /** For sampling: the context the server asked to see (absent means `none`). */
  includeContext?: ContextScope;
}

/** A record's two frames, as a native event or a stored line holds them (either may be anything a log wrote). */
interface Frames {
  request?: unknown;
  response?: unknown;
}

/** The requests a round's `input_required` result makes of the client, in the result's order. */
export function inputRequestsOf(server: string, event: Frames): InputRequest[] {
  const result = asRecord(asRecord(event.response)?.result);
  const asked = asRecord(result?.inputRequests);
  if (result?.resultType !== 'input_required' || asked === undefined) return [];
  const requests: InputRequest[] = [];
  for (const [key, value] of Object.entries(asked)) {
    const inner = asRecord(value);
    if (inner === undefined || typeof inner.method !== 'string') continue;
    const request: InputRequest = {
      key,
      method: inner.method,
      sender: 'server',
      identity: requestIdentity(server, { method: inner.method, params: inner.params }),
    };
    if (inner.method === 'sampling/createMessage') {
      request.includeContext = scopeOf(asRecord(inner.params)?.includeContext) ?? 'none';
    }
    requests.push(request);
  }
  return requests;
}

/**
 * The context gap of a sampling request answered in a later round (section 7 read where section 10 moves it): the
 * first answer in `inputResponses` that reports its `_meta.context`. The requested scope is read from that report,
 * as a 2025 sampling answer's is from its own request: the request itself sits in the round before, another record,
 * so an answer that does not restate what was requested cannot be placed in the matrix and is left out.
 */
export function answeredContextOf(event: Frames): ContextObservation | null {
  const answers = asRecord(asRecord(asRecord(event.request)?.params)?.inputResponses);
  if (answers === undefined) return null;
  for (const answer of Object.values(answers)) {
    const reported = asRecord(asRecord(asRecord(answer)?._meta)?.context);
    const requested = scopeOf(reported?.requested);
    if (reported === undefined || requested === null) continue;
    return { requested, applied: scopeOf(reported.applied), reason: columnText(reported.reason) };
  }
  return null;
}

export function scopeOf(value: unknown): ContextScope | null {
  return SCOPES.includes(value as ContextScope) ? (value as ContextScope) : null;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
