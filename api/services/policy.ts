import type { ServerConfigRow } from '../../db/queries/servers.ts';
import type { CodeOverride, ServerPolicy } from '../../shared/classify/types.ts';
import type { DiscoveryDocument } from '../../shared/discovery.ts';

/** The classifier's view of a server's stored configuration. */
export function policyOf(row: ServerConfigRow | null | undefined): ServerPolicy {
  return {
    discovery: row?.discovery ? (JSON.parse(row.discovery) as DiscoveryDocument) : null,
    overrides: row ? (JSON.parse(row.overrides) as CodeOverride[]) : [],
  };
}
