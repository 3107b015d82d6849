/**
 * The protocol eras and MCP 2026-07-28's multi round-trip calls in words (DOMAIN.md section 10): what the event view,
 * a server's page and the Clients screen say of them.
 */
import type { Era } from '../../shared/era.ts';
import { formatCount, formatTime } from '../format.ts';

const ERA_NAME: Readonly<Record<Era, string>> = { '2025': '2025', '2026': '2026-07-28' };

/** The era of one request: "2026-07-28 (stateless)", "2025 (2025-11-25)", or that the request does not say. */
export function eraText(era: string | null, protocolVersion: string | null): string {
  if (era !== '2025' && era !== '2026') return 'not told by the request';
  if (era === '2026')
    return protocolVersion === null || protocolVersion === '2026-07-28'
      ? '2026-07-28 (stateless)'
      : `2026-07-28 era (${protocolVersion})`;
  return protocolVersion === null ? '2025 (sessions)' : `2025 (${protocolVersion})`;
}

/** The eras a client speaks or a server answers in, as a short phrase. */
export function speaksText(speaks: readonly Era[]): string {
  if (speaks.length === 0) return 'no era told';
  if (speaks.length === 1) return `${ERA_NAME[speaks[0] as Era]} only`;
  return speaks.map((era) => ERA_NAME[era]).join(' and ');
}

/** One client speaking only 2025, or one server answering only 2025: what the operator may want to upgrade. */
export function onlyLegacy(speaks: readonly Era[]): boolean {
  return speaks.length === 1 && speaks[0] === '2025';
}

/** What a server's eras say, in a sentence. */
export function serverEraHeadline(speaks: readonly Era[]): string {
  if (onlyLegacy(speaks)) return 'Answers only 2025-era requests: 2026-07-28 clients fall back to sessions here.';
  if (speaks.length === 0) return 'No request in this range said its era.';
  return `Answers ${speaksText(speaks)} requests.`;
}

/** The part an MRTR round plays in its call: it asked for input, it carries the answers, or both. */
export function roundRoles(event: { bucket: string; continuation: boolean }): string[] {
  const roles: string[] = [];
  if (event.continuation) roles.push('Answers an input request: it carries the answers the round before asked for.');
  if (event.bucket === 'pending') {
    roles.push(
      'Asks for input: the server answered input_required; the call goes on when the client sends the answers.',
    );
  }
  return roles;
}

/** What a sampling request asked to see, by its `includeContext`. */
const CONTEXT_ASKED: Record<string, string> = {
  none: 'asking for no context',
  thisServer: "asking to see this server's context",
  allServers: "asking to see every server's context",
};

/** What a sampling request a server made inside its answer asked to see, in words; null for any other request. */
export function contextAskedText(includeContext: string | undefined): string | null {
  return includeContext === undefined ? null : (CONTEXT_ASKED[includeContext] ?? null);
}

interface CallView {
  rounds: readonly { ts: string }[];
  round: number;
  firstInLog: boolean;
}

/** "Round 2 of 2 of the call sent at 01:49:40", or what the log lacks. */
export function roundHeadline(call: CallView): string {
  const first = call.rounds[0];
  const at = first === undefined ? '' : ` sent at ${formatTime(Date.parse(first.ts))} UTC`;
  const of = `Round ${call.round} of ${call.rounds.length}`;
  if (!call.firstInLog) return `${of} in the log: the send that asked for input is not in it.`;
  return `${of} of the call${at}.`;
}

/** Round trips per call that asked for input: "2.0", or a dash without such a call. */
export function roundsPerCallText(roundsPerCall: number | null): string {
  return roundsPerCall === null ? '–' : roundsPerCall.toFixed(1);
}

/**
 * What a server asked of its clients inside rounds (DOMAIN.md section 10), per method, most first: "elicitation/create
 * ×4, sampling/createMessage ×1", then how many were a request it had asked before ("2 asked again").
 */
export function askedInRoundsText(inRounds: {
  requests: number;
  again: number;
  byMethod: Record<string, number>;
}): string {
  if (inRounds.requests === 0) return 'nothing';
  const methods = Object.entries(inRounds.byMethod)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([method, requests]) => `${method} ×${formatCount(requests)}`);
  const again = inRounds.again === 0 ? '' : `; ${formatCount(inRounds.again)} asked again`;
  return `${methods.join(', ')}${again}`;
}
