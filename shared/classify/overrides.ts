import type { Signals } from './signals.ts';
import type { Classification, CodeOverride, ServerPolicy } from './types.ts';

type Match = Classification | undefined;

function applied(override: CodeOverride, rule: string): Classification {
  return { bucket: override.bucket, kind: override.kind, rule, evidence: 'override' };
}

/**
 * An operator's mapping of a JSON-RPC code for this server, matched against the typed code or, failing that, the
 * code an SDK wrote into an isError text: operators re-map the code a server uses, wherever it ended up.
 */
export function rpcOverride(s: Signals, policy: ServerPolicy): Match {
  const code = s.rpcCode ?? s.sdkCode;
  if (code === undefined) return undefined;
  for (const override of policy.overrides) {
    if ('rpcCode' in override.match && override.match.rpcCode === code) return applied(override, 'override.rpc_code');
  }
  return undefined;
}

export function httpOverride(s: Signals, policy: ServerPolicy): Match {
  if (s.status === undefined) return undefined;
  for (const override of policy.overrides) {
    if ('httpStatus' in override.match && override.match.httpStatus === s.status) {
      return applied(override, 'override.http_status');
    }
  }
  return undefined;
}
