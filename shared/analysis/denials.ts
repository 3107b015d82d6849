/**
 * Denials that did not hold (DOMAIN.md section 5, seed 002 "the decision has to outlive the answer"): the audit of
 * the decision store. A refusal of a request is a decision about that request; while it stands, the same request
 * presented again should get the same refusal, replayed. A different answer means the request was evaluated afresh:
 * the store forgot the decision (a store scoped to the connection forgets it at every reconnect).
 *
 * Per request key (shared/analysis/request-key.ts: client, server, endpoint and identity), in time order:
 * - A refusal the gate holds against the request key (`refusalBlock` 'key') is a decision about the request. Refusals
 *   about the endpoint (`not_declared`, 405) or the JSON-RPC method (-32601) say nothing about this request's
 *   decision, and session-scoped refusals end with their session: a success on a new session after `session_expired`
 *   is the prescribed recovery, not a forgotten decision. Those are skipped.
 * - The decision stands until it lapses, where the gate says it does (gate.ts `refusalLapse`: `resetsAt`, or seed
 *   002's TTL for its reason). A re-presentation after that is a fresh evaluation the client is owed, not a breach.
 * - While it stands, the same refusal again (same kind and code) is the store working: `replayed`. An answer that
 *   is no such refusal (a success above all, an ambiguous answer that ran the tool, a refusal for another reason) did
 *   not hold it: one `DenialNotHeld`, and that answer replaces the decision, as it does in the gate. Transient and
 *   throttled answers say nothing about the decision (the request never reached it) and leave it standing.
 *
 * Only events the gate judges (counted records of a named client) with an identity take part.
 */
import type { Era } from '../era.ts';
import { type NameRecord, nameRecord } from '../name-record.ts';
import { byTimeOrder, isJudged, isRepairScoped, refusalBlock, refusalLapse, standsAt } from './gate.ts';
import { requestKey } from './request-key.ts';
import type { AnalysisEvent } from './types.ts';

/** One side of a denial that did not hold, as the list shows it and links to it. */
export interface DenialEventRef {
  id: string;
  ts: number;
  session: string | null;
  bucket: string;
  kind: string;
  rpcCode: number | null;
  httpStatus: number | null;
  /** The MCP era its request spoke (DOMAIN.md section 10); absent in refs stored before eras were read. */
  era?: Era | null;
}

export interface DenialNotHeld {
  client: string;
  server: string;
  /** The public identity (DOMAIN.md section 5). */
  identity: string;
  rpcMethod: string | null;
  /** The decision: the refusal that first refused the request. */
  refusal: DenialEventRef;
  /** The later answer that differed while the refusal stood. */
  answer: DenialEventRef;
  /**
   * Whether the answer came on another session than the refusal: the store was reset by a reconnect. Null when the
   * refusal was MCP 2026-07-28 traffic, which has no sessions (DOMAIN.md section 10): the question does not apply.
   */
  newSession: boolean | null;
  /**
   * MCP 2026-07-28's "in between" (DOMAIN.md section 10), null for 2025-era traffic: whether the client sent the
   * server a new `server/discover` probe after the refusal and before the answer (`inBetweenProbe`). A probe is
   * another request than the refused one, so whoever sees the client's whole traffic answers it: `ProbeTimes` in a
   * stream, db/queries/denials.ts in the store. `stepDenialAudit` leaves it null.
   */
  reprobed: boolean | null;
  /**
   * Whether the answer came from another client instance than the refusal (`restartedBetween`): its `_meta`
   * clientInfo differs. Null for 2025-era traffic, and where either request did not carry one.
   */
  restarted: boolean | null;
}

/** A re-presented request that got its standing refusal again: the decision store replayed it. */
export interface DenialReplay {
  client: string;
  server: string;
  identity: string;
  ts: number;
}

export interface DenialAudit {
  notHeld: DenialNotHeld[];
  replayed: DenialReplay[];
}

/** The audit of `events` (any order; the result does not depend on it). */
export function auditDenials(events: readonly AnalysisEvent[]): DenialAudit {
  const { notHeld, replayed } = auditDenialsFrom(new Map(), events, null);
  return { notHeld, replayed };
}

/**
 * What the audit reads of a deciding refusal: its request key's parts, when it lapses, what a replay must match, and
 * the ref a breach shows. All a stored state keeps of it (`serialiseDecisions`).
 */
export type Decision = Pick<
  AnalysisEvent,
  | 'id'
  | 'ts'
  | 'client'
  | 'server'
  | 'session'
  | 'httpMethod'
  | 'httpPath'
  | 'httpStatus'
  | 'rpcMethod'
  | 'rpcCode'
  | 'identity'
  | 'bucket'
  | 'kind'
  | 'waitUntil'
  | 'era'
  | 'clientInstance'
>;

/** Request key → the decision standing on it: all the audit holds between events. */
export type DenialDecisions = Map<string, Decision>;

/** An audit resumed from a standing state, with the state it passed through at a boundary. */
export interface ResumedDenialAudit extends DenialAudit {
  /**
   * The decisions standing at `boundary` (after every event before it, those lapsed by then left out): what an audit
   * of the later events resumes from. Those at the end when the boundary is null.
   */
  decisionsAt: DenialDecisions;
}

/**
 * The audit of `events` resumed from `decisions`, the state an audit of the earlier events left: for events all at
 * or after the time `decisions` stand at, the findings of `auditDenials` over the earlier and these events together
 * that fall on these (the audit is a pass in time order, so nothing earlier depends on a later event). `decisions` is
 * not changed. Any order of `events`.
 */
export function auditDenialsFrom(
  decisions: ReadonlyMap<string, Decision>,
  events: readonly AnalysisEvent[],
  boundary: number | null,
): ResumedDenialAudit {
  const audit: DenialAudit = { notHeld: [], replayed: [] };
  const state: DenialDecisions = new Map(decisions);
  let decisionsAt: DenialDecisions | null = null;
  for (const e of events.filter(isAudited).sort(byTimeOrder)) {
    if (decisionsAt === null && boundary !== null && e.ts >= boundary) decisionsAt = standingAt(state, boundary);
    stepDenialAudit(state, e, audit);
  }
  return { ...audit, decisionsAt: decisionsAt ?? (boundary === null ? state : standingAt(state, boundary)) };
}

/** The decisions that still stand at `t`: one lapsed by then can decide nothing later (`standsAt` is a `t <`). */
function standingAt(decisions: DenialDecisions, t: number): DenialDecisions {
  const standing: DenialDecisions = new Map();
  for (const [key, decision] of decisions) if (standsAt(refusalLapse(decision), t)) standing.set(key, decision);
  return standing;
}

/**
 * Standing decisions of one identity as stored (db/queries/denial-audit.ts keeps a row per identity, refused ones
 * ~10% of the traffic): each decision a JSON array of its fields in `STORED_FIELDS` order, without what the row
 * names already (server, identity) or what every decision is (a refusal). A quarter of the whole event's JSON.
 */
export function serialiseDecisions(decisions: ReadonlyMap<string, Decision>): string {
  return JSON.stringify([...decisions.values()].map((d) => STORED_FIELDS.map((field) => d[field] ?? null)));
}

/**
 * The decisions `serialiseDecisions` stored for `identity` (public form, `server:digest`). Rows written before that
 * form held whole events (objects), read as they are.
 */
export function parseDecisions(text: string, identity: string): DenialDecisions {
  const server = identity.slice(0, identity.lastIndexOf(':'));
  const stored = JSON.parse(text) as (unknown[] | Decision)[];
  const decisions: DenialDecisions = new Map();
  for (const item of stored) {
    const decision = Array.isArray(item) ? storedDecision(item, server, identity) : item;
    decisions.set(requestKey(decision), decision);
  }
  return decisions;
}

const STORED_FIELDS = [
  'id',
  'ts',
  'client',
  'session',
  'httpMethod',
  'httpPath',
  'httpStatus',
  'rpcMethod',
  'rpcCode',
  'kind',
  'waitUntil',
  'era',
  'clientInstance',
] as const satisfies readonly Exclude<keyof Decision, 'server' | 'identity' | 'bucket'>[];

function storedDecision(values: readonly unknown[], server: string, identity: string): Decision {
  const decision = { server, identity, bucket: 'refusal' } as Record<string, unknown>;
  STORED_FIELDS.forEach((field, i) => {
    decision[field] = values[i] ?? null;
  });
  return decision as Decision;
}

/**
 * Whether a refusal is a decision about the request itself (see the module comment). -32020 and -32022 are about a
 * header or the protocol version the request came with (DOMAIN.md section 10): the corrected request, same identity,
 * is the recovery the protocol asks for, so its success says nothing about the decision store.
 */
export function isDecision(e: AnalysisEvent): boolean {
  return e.bucket === 'refusal' && refusalBlock(e) === 'key' && !isRepairScoped(e.kind);
}

function isAudited(e: AnalysisEvent): boolean {
  return isJudged(e) && e.identity !== null;
}

/**
 * Audits one event, in time order (per request key), against the decisions standing so far, adding what it finds to
 * `audit`: what `auditDenials` replays, and what a stream (`lens report`) steps event by event.
 */
export function stepDenialAudit(decisions: DenialDecisions, e: AnalysisEvent, audit: DenialAudit): void {
  if (!isAudited(e)) return;
  const key = requestKey(e);
  let decision = decisions.get(key);
  if (decision !== undefined && !standsAt(refusalLapse(decision), e.ts)) {
    decisions.delete(key);
    decision = undefined;
  }
  if (decision === undefined) {
    if (isDecision(e)) decisions.set(key, e);
    return;
  }
  // A failure of the moment or of rate decides nothing, and an input request (MCP 2026-07-28) is no answer yet.
  if (e.bucket === 'transient' || e.bucket === 'throttled' || e.bucket === 'pending') return;
  const { client, server, identity } = decision as AnalysisEvent & { client: string; identity: string };
  if (e.bucket === 'refusal' && e.kind === decision.kind && e.rpcCode === decision.rpcCode) {
    audit.replayed.push({ client, server, identity, ts: e.ts });
    return;
  }
  const sessionless = isSessionless(decision);
  audit.notHeld.push({
    client,
    server,
    identity,
    rpcMethod: decision.rpcMethod,
    refusal: refOf(decision),
    answer: refOf(e),
    newSession: sessionless ? null : e.session !== decision.session,
    reprobed: null,
    restarted: sessionless ? restartedBetween(decision.clientInstance, e.clientInstance) : null,
  });
  if (isDecision(e)) decisions.set(key, e);
  else decisions.delete(key);
}

/** MCP 2026-07-28 traffic has no sessions (DOMAIN.md section 10): "a new session in between" does not apply. */
export function isSessionless(refusal: Pick<DenialEventRef, 'era'>): boolean {
  return refusal.era === '2026';
}

/** Whether two requests came from different client instances (shared/era.ts clientInstanceOf); null: one is unknown. */
export function restartedBetween(
  refusal: string | null | undefined,
  answer: string | null | undefined,
): boolean | null {
  return refusal == null || answer == null ? null : refusal !== answer;
}

/** The probe that asks a 2026-07-28 server what it speaks: a client's first request, sent again when it reconnects. */
export const PROBE_METHOD = 'server/discover';

/**
 * The probe times of each client to each server, as a stream of the client's traffic (every counted request, in
 * time order) passes: enough to say whether a probe came strictly between two times. A pair keeps two times, its
 * latest probe and the latest one before that: every probe seen is at or before the answer being audited, so the
 * latest probe before the answer is one of them.
 */
export class ProbeTimes {
  private readonly pairs = new Map<string, { last: number; before: number }>();

  note(e: AnalysisEvent): void {
    if (!e.counted || e.client === null || e.rpcMethod !== PROBE_METHOD) return;
    const key = JSON.stringify([e.client, e.server]);
    const held = this.pairs.get(key);
    if (held === undefined) this.pairs.set(key, { last: e.ts, before: Number.NEGATIVE_INFINITY });
    else if (e.ts > held.last) this.pairs.set(key, { last: e.ts, before: held.last });
  }

  /** `d` with `reprobed` answered from the probes noted so far (before its answer), when its refusal was 2026's. */
  inBetween(d: DenialNotHeld): DenialNotHeld {
    if (!isSessionless(d.refusal)) return d;
    const held = this.pairs.get(JSON.stringify([d.client, d.server]));
    const latest = held === undefined ? null : held.last < d.answer.ts ? held.last : held.before;
    return { ...d, reprobed: latest !== null && latest > d.refusal.ts };
  }
}

function refOf(e: Decision | AnalysisEvent): DenialEventRef {
  return {
    id: e.id,
    ts: e.ts,
    session: e.session,
    bucket: e.bucket,
    kind: e.kind,
    rpcCode: e.rpcCode,
    httpStatus: e.httpStatus,
    era: e.era,
  };
}

/** Denials that did not hold, in all and per client and per server. */
export interface DenialCounts {
  total: number;
  byClient: NameRecord<number>;
  byServer: NameRecord<number>;
}

export function emptyDenialCounts(): DenialCounts {
  return { total: 0, byClient: nameRecord(), byServer: nameRecord() };
}

/** Counts of denials that did not hold, each item one of them or, with `count`, that many of its client and server. */
export function countNotHeld(
  items: readonly (Pick<DenialNotHeld, 'client' | 'server'> & { count?: number })[],
): DenialCounts {
  const counts = emptyDenialCounts();
  for (const { client, server, count = 1 } of items) {
    counts.total += count;
    counts.byClient[client] = (counts.byClient[client] ?? 0) + count;
    counts.byServer[server] = (counts.byServer[server] ?? 0) + count;
  }
  return counts;
}

/** Per client, how its re-presented refusals were answered: replayed (the store working) or evaluated afresh. */
export function representedRefusalsOf(replayed: ReadonlyMap<string, number>, notHeldByClient: NameRecord<number>) {
  const clients = new Set([...replayed.keys(), ...Object.keys(notHeldByClient)]);
  return [...clients].sort().map((client) => ({
    client,
    replayed: replayed.get(client) ?? 0,
    evaluatedAfresh: notHeldByClient[client] ?? 0,
  }));
}

/** The counts and list of denials that did not hold, with how each client's re-presented refusals went. */
export function denialSummary(
  items: readonly DenialNotHeld[],
  replayed: ReadonlyMap<string, number>,
  counts: DenialCounts = countNotHeld(items),
) {
  return { ...counts, items, representedRefusals: representedRefusalsOf(replayed, counts.byClient) };
}

/** Replays counted per client. */
export function replaysPerClient(replays: readonly DenialReplay[], into = new Map<string, number>()) {
  for (const r of replays) into.set(r.client, (into.get(r.client) ?? 0) + 1);
  return into;
}
