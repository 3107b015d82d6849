import { isSentByServer } from '../frames.ts';
import { shareOf } from '../share.ts';
import type { GateVerdict } from './gate-types.ts';
import type { AvoidableCount, AvoidableSummary } from './storms.ts';
import type { AnalysisEvent } from './types.ts';

/**
 * Avoidable requests per client, per server and per (client, server), folded one event at a time: the one home of
 * these sums, for `summariseAvoidable` over an array and for the offline report over a log too large to hold. One
 * tally per name or pair, whatever the number of events. Order independent (only sums).
 */
export interface AvoidableTallies {
  clients: Map<string, Tally>;
  servers: Map<string, Tally>;
  /** client → server → tally. */
  pairs: Map<string, Map<string, Tally>>;
}

interface Tally {
  requests: number;
  avoidable: number;
}

export function createAvoidableTallies(): AvoidableTallies {
  return { clients: new Map(), servers: new Map(), pairs: new Map() };
}

/** Folds one event and its verdict (undefined when the gate gave none: the event counts as needed). */
export function addAvoidable(acc: AvoidableTallies, e: AnalysisEvent, verdict: GateVerdict | undefined): void {
  if (!e.counted) return;
  const avoidable = verdict?.avoidable === true ? 1 : 0;
  count(acc.servers, e.server, avoidable);
  // A request the server sent to the client is the server's conduct, never the client's (DOMAIN.md section 6).
  if (e.client === null || isSentByServer(e.rpcMethod)) return;
  count(acc.clients, e.client, avoidable);
  let byServer = acc.pairs.get(e.client);
  if (byServer === undefined) {
    byServer = new Map();
    acc.pairs.set(e.client, byServer);
  }
  count(byServer, e.server, avoidable);
}

/** The rows: most avoidable first, then most requests, then by name (client, then server), a total order. */
export function avoidableRows(acc: AvoidableTallies): AvoidableSummary {
  const byPair = [...acc.pairs].flatMap(([client, servers]) =>
    [...servers].map(([server, t]) => ({ client, server, ...withShare(t) })),
  );
  return {
    byClient: ranked([...acc.clients].map(([client, t]) => ({ client, ...withShare(t) }))),
    byServer: ranked([...acc.servers].map(([server, t]) => ({ server, ...withShare(t) }))),
    byPair: ranked(byPair),
  };
}

function count(tallies: Map<string, Tally>, name: string, avoidable: number): void {
  const t = tallies.get(name);
  if (t === undefined) tallies.set(name, { requests: 1, avoidable });
  else {
    t.requests++;
    t.avoidable += avoidable;
  }
}

function withShare(t: Tally): AvoidableCount {
  return { requests: t.requests, avoidable: t.avoidable, share: shareOf(t.avoidable, t.requests) };
}

function ranked<T extends AvoidableCount & { client?: string; server?: string }>(rows: T[]): T[] {
  return rows.sort(
    (a, b) =>
      b.avoidable - a.avoidable ||
      b.requests - a.requests ||
      compareText(a.client ?? '', b.client ?? '') ||
      compareText(a.server ?? '', b.server ?? ''),
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
