import { formatCount, shortIdentity } from '../format.ts';
import type { StormSummary } from '../queries/storms.ts';

export const STORM_KIND_LABEL: Readonly<Record<StormSummary['kind'], string>> = {
  retry_loop: 'Retry loop',
  reconnect_loop: 'Reconnect loop',
  probe_storm: 'Probe storm',
};

/** Who the storm's sender is, for the advice: a server's own requests (sampling, elicitation) are its conduct. */
export function correctSender(storm: Pick<StormSummary, 'sentBy'>): string {
  return storm.sentBy === 'server' ? 'A correct server' : 'A correct client';
}

export interface KeyParts {
  identity: string | null;
  rpcMethod: string | null;
}

/** The request key is a JSON array (client, server, HTTP method, path, identity, JSON-RPC method). */
export function parseRequestKey(key: string | null): KeyParts | null {
  if (key === null) return null;
  try {
    const parts: unknown = JSON.parse(key);
    if (!Array.isArray(parts) || parts.length !== 6) return null;
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    return { identity: text(parts[4]), rpcMethod: text(parts[5]) };
  } catch {
    return null;
  }
}

/** What was hammered, in one line: a retry loop's endpoint and request, a reconnect loop's endpoint, a probe storm's targets. */
export function stormTarget(storm: Pick<StormSummary, 'kind' | 'key' | 'paths'>): string {
  if (storm.kind === 'probe_storm') {
    const [first, ...rest] = storm.paths;
    if (first === undefined) return 'no refused paths';
    return rest.length === 0 ? first : `${formatCount(storm.paths.length)} targets: ${storm.paths.join(', ')}`;
  }
  const endpoint = storm.paths[0] ?? '';
  if (storm.kind === 'reconnect_loop') return endpoint;
  const key = parseRequestKey(storm.key);
  const what = key?.identity ? shortIdentity(key.identity) : key?.rpcMethod;
  return what ? `${endpoint} · ${what}` : endpoint;
}
