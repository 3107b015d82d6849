/**
 * The rules MCP 2026-07-28 adds (DOMAIN.md section 10): the multi round-trip request's rounds, and the era probe a
 * 2025-only server answers with a 400.
 */
import { outcome } from './outcome.ts';
import type { Signals } from './signals.ts';
import type { Classification } from './types.ts';

type Match = Classification | undefined;

const INPUT_REQUIRED = outcome('mrtr.input_required', 'pending', 'input_required', 'none');

/** `resultType: "input_required"`: the server asks for input before it answers; the call is not over. */
export function inputRequired(s: Signals): Match {
  return s.inputRequired && !s.failed ? INPUT_REQUIRED : undefined;
}

const USER_DECLINED = outcome('mrtr.user_declined', 'refusal', 'user_declined', 'none');

/**
 * A round carrying a decline or a cancel: the user refused, whatever the server's text says. A timeout, a 429 or a
 * 5xx says the round never reached an answer, so those keep their own rules.
 */
export function userDeclined(s: Signals): Match {
  if (!s.declined || s.timeout) return undefined;
  const status = s.status ?? 0;
  return status === 429 || status >= 500 ? undefined : USER_DECLINED;
}

const ERA_LEGACY = outcome('era.legacy_probe', 'ok', 'era_legacy', 'http_status');

/**
 * The era probe (`server/discover`) answered 400 by a server that knows only the 2025 protocol: the client learns
 * the server's era and falls back to `initialize`. Negotiation, not a refusal of anything the client needs.
 */
export function eraLegacyProbe(s: Signals): Match {
  return s.rpcMethod === 'server/discover' && s.status === 400 ? ERA_LEGACY : undefined;
}
