import { isSentByServer } from '../frames.ts';
import { type NameRecord, nameRecord } from '../name-record.ts';
import { GATE_REASONS, type GateReason, type GateVerdict } from './gate-types.ts';
import type { AnalysisEvent } from './types.ts';

/**
 * Client conduct: what each client did that a correct client would not have. The gate replay (DOMAIN.md section 6)
 * decides which sends were avoidable and why; this module only counts its verdicts per client and per server, plus
 * the one finding the gate does not make: probing undeclared paths without having read the discovery document.
 */

export interface ConductCounts {
  /** Counted requests sent by the client. */
  requests: number;
  /** Requests the gate judged avoidable, whatever the reason. */
  avoidable: number;
  /** Refused as undeclared (refusal / not_declared) while the client had not read the discovery document. */
  probedWithoutDiscovery: number;
  retriedAfterRefusal: number;
  retriedBeforeRetryAfter: number;
  retriedPastBudget: number;
  identicalAfterAmbiguous: number;
}

export interface ClientConductState extends ConductCounts {
  /** Avoidable requests per server: the servers this client's conduct costs the most. */
  avoidableByServer: NameRecord<number>;
}

/**
 * Order independent (only sums). Records are null-prototype so any client or server name is just a key.
 */
export interface ConductAccumulator {
  clients: NameRecord<ClientConductState>;
}

const COUNTER_OF: Record<GateReason, keyof ConductCounts> = {
  after_refusal: 'retriedAfterRefusal',
  before_retry_after: 'retriedBeforeRetryAfter',
  past_transient_budget: 'retriedPastBudget',
  identical_after_ambiguous: 'identicalAfterAmbiguous',
};

export function emptyConduct(): ConductAccumulator {
  return { clients: nameRecord<ClientConductState>() };
}

/**
 * Folds one event and its verdict (undefined when the gate gave none) into the accumulator, mutating it. Only
 * counted requests a named client sent take part: a shadowed proxy record is the client's own send seen twice, and a
 * request the server sent to the client is the server's conduct (DOMAIN.md section 6).
 */
export function addConduct(acc: ConductAccumulator, event: AnalysisEvent, verdict?: GateVerdict): ConductAccumulator {
  if (!event.counted || event.client === null || isSentByServer(event.rpcMethod)) return acc;
  const state = clientState(acc, event.client);
  state.requests += 1;
  if (event.discoveryRead === false && event.bucket === 'refusal' && event.kind === 'not_declared') {
    state.probedWithoutDiscovery += 1;
  }
  if (verdict === undefined || !verdict.avoidable) return acc;
  state.avoidable += 1;
  state.avoidableByServer[event.server] = (state.avoidableByServer[event.server] ?? 0) + 1;
  if (verdict.reason !== null) state[COUNTER_OF[verdict.reason]] += 1;
  return acc;
}

/** Counts already summed for one client, as the rollups keep them: avoidable requests per gate reason. */
export interface SummedConduct extends Record<GateReason, number> {
  requests: number;
  avoidable: number;
  probedWithoutDiscovery: number;
}

/**
 * Folds counts already summed for one client into the accumulator: with `addServerCost`, the same report as
 * folding each event, without reading the events. Reasons map to counters as in `addConduct`.
 */
export function addClientCounts(acc: ConductAccumulator, client: string, counts: SummedConduct): ConductAccumulator {
  const state = clientState(acc, client);
  state.requests += counts.requests;
  state.avoidable += counts.avoidable;
  state.probedWithoutDiscovery += counts.probedWithoutDiscovery;
  for (const reason of GATE_REASONS) state[COUNTER_OF[reason]] += counts[reason];
  return acc;
}

/** Folds a client's avoidable requests to one server, already summed, into which servers it hurts most. */
export function addServerCost(
  acc: ConductAccumulator,
  client: string,
  server: string,
  avoidable: number,
): ConductAccumulator {
  if (avoidable === 0) return acc;
  const state = clientState(acc, client);
  state.avoidableByServer[server] = (state.avoidableByServer[server] ?? 0) + avoidable;
  return acc;
}

export interface ServerCost {
  server: string;
  avoidable: number;
}

export interface ClientConduct extends ConductCounts {
  client: string;
  /** The servers this client sent the most avoidable requests to, most first. */
  hurtsMost: ServerCost[];
}

/** Per client, most avoidable requests first (then by name, for a stable order). */
export function conductReport(acc: ConductAccumulator, topServers = 3): ClientConduct[] {
  return Object.entries(acc.clients)
    .map(([client, state]): ClientConduct => {
      const { avoidableByServer, ...counts } = state;
      return { client, ...counts, hurtsMost: worstServers(avoidableByServer, topServers) };
    })
    .sort((a, b) => b.avoidable - a.avoidable || compareText(a.client, b.client));
}

/** The offline report: events with the gate replay's verdicts, keyed by event id. */
export function clientConduct(
  events: Iterable<AnalysisEvent>,
  verdicts: ReadonlyMap<string, GateVerdict>,
  topServers = 3,
): ClientConduct[] {
  const acc = emptyConduct();
  for (const event of events) addConduct(acc, event, verdicts.get(event.id));
  return conductReport(acc, topServers);
}

function clientState(acc: ConductAccumulator, client: string): ClientConductState {
  let state = acc.clients[client];
  if (state === undefined) {
    state = {
      requests: 0,
      avoidable: 0,
      probedWithoutDiscovery: 0,
      retriedAfterRefusal: 0,
      retriedBeforeRetryAfter: 0,
      retriedPastBudget: 0,
      identicalAfterAmbiguous: 0,
      avoidableByServer: nameRecord<number>(),
    };
    acc.clients[client] = state;
  }
  return state;
}

function worstServers(avoidableByServer: Record<string, number>, n: number): ServerCost[] {
  return Object.entries(avoidableByServer)
    .map(([server, avoidable]) => ({ server, avoidable }))
    .sort((a, b) => b.avoidable - a.avoidable || compareText(a.server, b.server))
    .slice(0, Math.max(0, n));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
