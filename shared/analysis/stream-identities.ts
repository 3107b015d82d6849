import { compareOrder, type IdentityStats, isIdentitySend, type LastOutcome } from './identities.ts';
import type { AnalysisEvent } from './types.ts';

/**
 * `topIdentities` folded one send at a time, for the offline report over a log too large to hold.
 *
 * Memory: one fixed-size tally per distinct identity (its counts, first and last times, and the latest send's
 * outcome), whatever the number of sends; no list of sends, so the many identities sent once cost a tally each.
 * Exact counts need every identity's tally: any of them may still climb into the top.
 */
export type IdentityTallies = Map<string, IdentityTally>;

interface IdentityTally {
  server: string;
  method: string | null;
  sends: number;
  firstSeen: number;
  lastSeen: number;
  last: LastOutcome;
}

export function createIdentityTallies(): IdentityTallies {
  return new Map();
}

/** Folds one event: only counted events with an identity are sends (`isIdentitySend`). Any order. */
export function addIdentitySend(acc: IdentityTallies, e: AnalysisEvent): void {
  if (!isIdentitySend(e)) return;
  const t = acc.get(e.identity);
  if (t === undefined) {
    acc.set(e.identity, {
      server: e.server,
      method: e.rpcMethod,
      sends: 1,
      firstSeen: e.ts,
      lastSeen: e.ts,
      last: outcomeOf(e),
    });
    return;
  }
  t.sends++;
  t.firstSeen = Math.min(t.firstSeen, e.ts);
  t.lastSeen = Math.max(t.lastSeen, e.ts);
  if (compareOrder(e, t.last) > 0) {
    t.last = outcomeOf(e);
    t.server = e.server;
    t.method = e.rpcMethod;
  }
}

/** The `n` most sent identities, as `topIdentities` ranks them: most sends first, ties by identity. */
export function topIdentitiesOf(acc: IdentityTallies, n: number): IdentityStats[] {
  // A top kept while scanning: sorting every tally would build an array as long as the identities.
  const top: [string, IdentityTally][] = [];
  for (const entry of acc) {
    const worst = top.at(-1);
    if (top.length >= n && (worst === undefined || !ranksBefore(entry, worst))) continue;
    const at = top.findIndex((held) => ranksBefore(entry, held));
    top.splice(at === -1 ? top.length : at, 0, entry);
    if (top.length > n) top.pop();
  }
  return top.map(([identity, { server, method, sends, firstSeen, lastSeen, last }]) => ({
    identity,
    server,
    method,
    sends,
    represented: sends - 1,
    firstSeen,
    lastSeen,
    last,
  }));
}

function ranksBefore([identityA, a]: [string, IdentityTally], [identityB, b]: [string, IdentityTally]): boolean {
  return a.sends > b.sends || (a.sends === b.sends && identityA < identityB);
}

function outcomeOf(e: AnalysisEvent): LastOutcome {
  return { ts: e.ts, seq: e.seq, id: e.id, bucket: e.bucket, kind: e.kind, rule: e.rule };
}
