import {
  compareOrder,
  type IdentitySend,
  type IdentityStats,
  type LastOutcome,
  representations,
  sendsOf,
} from './identities.ts';
import type { AnalysisEvent } from './types.ts';

/**
 * `topIdentities` folded one send at a time, for the offline report over a log too large to hold.
 *
 * Memory: one fixed-size tally per distinct identity (its counts, first and last times and the latest send's
 * outcome: about 300 bytes with its key), whatever the number of sends. No list of sends is kept, so an identity
 * sent once costs that tally and no more. Exact counts need every identity's tally: any may still climb into the top.
 */
export interface IdentityTallies extends Iterable<[string, IdentityTally]> {
  get(identity: string): IdentityTally | undefined;
  set(identity: string, tally: IdentityTally): void;
}

/**
 * Flat (the latest send's outcome inline, not an object of its own): there is one per identity. Changed in place
 * after `get`; a store that spills (api/cli/spill.ts) writes it out as it is when it leaves memory.
 */
export interface IdentityTally extends LastOutcome {
  server: string;
  method: string | null;
  sends: number;
  firstSeen: number;
  lastSeen: number;
}

export function createIdentityTallies(): IdentityTallies {
  return new Map<string, IdentityTally>();
}

/** Folds one event's sends (`sendsOf`: its own, and what its server asked in its answer). Any order. */
export function addIdentitySend(acc: IdentityTallies, event: AnalysisEvent): void {
  for (const send of sendsOf(event)) addSend(acc, send);
}

function addSend(acc: IdentityTallies, e: IdentitySend): void {
  const t = acc.get(e.identity);
  if (t === undefined) {
    const { server, rpcMethod: method, ts, seq, id, bucket, kind, rule } = e;
    acc.set(e.identity, { server, method, sends: 1, firstSeen: ts, lastSeen: ts, ts, seq, id, bucket, kind, rule });
    return;
  }
  t.sends++;
  t.firstSeen = Math.min(t.firstSeen, e.ts);
  t.lastSeen = Math.max(t.lastSeen, e.ts);
  if (compareOrder(e, t) <= 0) return;
  t.server = e.server;
  t.method = e.rpcMethod;
  t.ts = e.ts;
  t.seq = e.seq;
  t.id = e.id;
  t.bucket = e.bucket;
  t.kind = e.kind;
  t.rule = e.rule;
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
  return top.map(([identity, { server, method, sends, firstSeen, lastSeen, ts, seq, id, bucket, kind, rule }]) => ({
    identity,
    server,
    method,
    sends,
    represented: representations(sends),
    firstSeen,
    lastSeen,
    last: { ts, seq, id, bucket, kind, rule },
  }));
}

function ranksBefore([identityA, a]: [string, IdentityTally], [identityB, b]: [string, IdentityTally]): boolean {
  return a.sends > b.sends || (a.sends === b.sends && identityA < identityB);
}
