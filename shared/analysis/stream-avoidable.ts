import { isSentByServer } from '../frames.ts';
import type { GateVerdict } from './gate-types.ts';
import type { AvoidableCount, AvoidableSummary } from './storms.ts';
import type { AnalysisEvent } from './types.ts';

/**
 * `summariseAvoidable`'s per-client and per-server rows, folded one event at a time for the offline report: one
 * tally per client and per server, whatever the number of events. Order independent (only sums).
 */
export interface AvoidableTallies {
  clients: Map<string, Tally>;
  servers: Map<string, Tally>;
}

interface Tally {
  requests: number;
  avoidable: number;
}

export function createAvoidableTallies(): AvoidableTallies {
  return { clients: new Map(), servers: new Map() };
}

/** Folds one event and its verdict (undefined when the gate gave none: the event counts as needed). */
export function addAvoidable(acc: AvoidableTallies, e: AnalysisEvent, verdict: GateVerdict | undefined): void {
  if (!e.counted) return;
  const avoidable = verdict?.avoidable === true ? 1 : 0;
  count(acc.servers, e.server, avoidable);
  // A request the server sent to the client is the server's conduct, never the client's (DOMAIN.md section 6).
  if (e.client !== null && !isSentByServer(e.rpcMethod)) count(acc.clients, e.client, avoidable);
}

/** The rows as `summariseAvoidable` gives them: most avoidable first, then most requests, then by name. */
export function avoidableRows(acc: AvoidableTallies): Pick<AvoidableSummary, 'byClient' | 'byServer'> {
  return {
    byClient: [...acc.clients]
      .map(([client, t]) => ({ client, ...shareOf(t) }))
      .sort((a, b) => ranked(a, b, a.client, b.client)),
    byServer: [...acc.servers]
      .map(([server, t]) => ({ server, ...shareOf(t) }))
      .sort((a, b) => ranked(a, b, a.server, b.server)),
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

function shareOf(t: Tally): AvoidableCount {
  return { requests: t.requests, avoidable: t.avoidable, share: t.avoidable / t.requests };
}

function ranked(a: AvoidableCount, b: AvoidableCount, nameA: string, nameB: string): number {
  return b.avoidable - a.avoidable || b.requests - a.requests || (nameA < nameB ? -1 : nameA > nameB ? 1 : 0);
}
