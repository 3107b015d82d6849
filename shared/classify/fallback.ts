import { INTERNAL_ERROR } from './codes.ts';
import { outcome } from './outcome.ts';
import type { Signals } from './signals.ts';
import type { Classification } from './types.ts';

const TOOL_ERROR = outcome('tool_error', 'ambiguous', 'tool_error', 'is_error');

/**
 * Rule 6's remainder: an isError result whose text carries no SDK code with a defined meaning. isError says
 * that something failed, never what or whether a retry can help (seed 004).
 */
export function toolError(s: Signals): Classification | undefined {
  return s.isError ? TOOL_ERROR : undefined;
}

const INTERNAL = outcome('fallback.ambiguous', 'ambiguous', 'internal_error', 'rpc_code');
const UNKNOWN_CODE = outcome('fallback.ambiguous', 'ambiguous', 'unknown_code', 'rpc_code');
const UNKNOWN_STATUS = outcome('fallback.ambiguous', 'ambiguous', 'unknown_status', 'http_status');
const UNEXPLAINED = outcome('fallback.ambiguous', 'ambiguous', 'unexplained_failure', 'none');

/**
 * Rule 7: every failure nothing above explains. -32603 gets its own kind because it is common and tells an
 * operator more than "unknown" (the server failed), yet not whether the failure lasts.
 */
export function ambiguous(s: Signals): Classification {
  if (s.rpcCode === INTERNAL_ERROR) return INTERNAL;
  if (s.rpcCode !== undefined) return UNKNOWN_CODE;
  if (s.status !== undefined && s.status >= 400) return UNKNOWN_STATUS;
  return UNEXPLAINED;
}
