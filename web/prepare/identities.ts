import type { IdentityRow } from '../queries/identities.ts';

export interface AlarmedIdentity {
  identity: string;
  server: string;
  method: string | null;
  /** The most re-presentations found inside one alarm window. */
  peak: number;
  represented: number;
  /** When the alarm threshold was first reached. */
  firstReachedAt: number;
  last: IdentityRow['last'];
}

/** Identities over the re-presentation alarm (seed 002: 40 in 10 minutes), the densest first. */
export function alarmedIdentities(identities: readonly IdentityRow[]): AlarmedIdentity[] {
  return identities
    .flatMap((row) => {
      const peak = Math.max(0, ...row.alarms.map((alarm) => alarm.count));
      const firstReachedAt = Math.min(...row.alarms.map((alarm) => alarm.firstReachedAt));
      if (row.alarms.length === 0) return [];
      const { identity, server, method, represented, last } = row;
      return [{ identity, server, method, peak, represented, firstReachedAt, last }];
    })
    .sort((a, b) => b.peak - a.peak || a.identity.localeCompare(b.identity));
}
