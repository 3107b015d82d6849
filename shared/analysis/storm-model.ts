/**
 * What a retry storm is to everyone who shows one (DOMAIN.md section 6): its kind, whose conduct it is, its title,
 * its counts and, when opened, its attempts. Found by shared/analysis/storm-tracker.ts.
 */
import type { Bucket } from '../classify/types.ts';
import type { GateBlock } from './gate-types.ts';

export const STORM_KINDS = ['probe_storm', 'reconnect_loop', 'retry_loop'] as const;
export type StormKind = (typeof STORM_KINDS)[number];

export interface StormSummary {
  /** Stable: a digest of kind, client, server and the first attempt (stormId). */
  id: string;
  kind: StormKind;
  /** The partition: the client and the server the attempts went between. */
  client: string;
  server: string;
  /** Who sent the attempts: the client, or the server for its own requests (sampling, elicitation, roots). */
  sentBy: 'client' | 'server';
  /** The sender's name, and the other side's. */
  actor: string;
  counterpart: string;
  /**
   * What the storm hammered, as the detector keys it: a retry loop's request key, a reconnect loop's endpoint
   * target, a probe storm's targets (a JSON array).
   */
  key: string;
  /** A probe storm's targets as read (`POST /mcp/sse`, a method's name), in first-seen order; a loop's endpoint. */
  paths: string[];
  attempts: number;
  avoidable: number;
  firstTs: number;
  lastTs: number;
  /** The first attempt's answer. */
  firstFailure: { bucket: Bucket; kind: string };
  /** The actor and the fault, in a sentence: "prober probed 3 undeclared endpoints of release-desk: …". */
  title: string;
}

export interface StormAttempt {
  id: string;
  ts: number;
  /** The JSON-RPC method sent, when there was a frame. */
  rpcMethod: string | null;
  status: number | null;
  rpcCode: number | null;
  /** Whether the record carries an answer frame (null: not known): a host log's answer has no HTTP status. */
  answered: boolean | null;
  latencyMs: number | null;
  bucket: Bucket;
  kind: string;
  /** The rule that classified it (`record.connection`: a host's connection attempt, read from a lifecycle log). */
  rule: string;
  avoidable: boolean;
  /** Which block made it avoidable (GateBlock: endpoint, method, key, session); null when sent or throttled. */
  blockedBy: GateBlock | null;
  /**
   * What a correct sender would have done, in plain words: "sent: first attempt", "not sent: the key was refused
   * (not_declared) at 10:00:01". Times are UTC, HH:MM:SS.
   */
  gate: string;
}

export interface Storm extends StormSummary {
  timeline: StormAttempt[];
}

/** A storm whose last attempt is this recent is still going on, as far as anyone can tell at 3 a.m. */
export const STORM_ACTIVE_MS = 10 * 60_000;

export function isActiveStorm(storm: Pick<StormSummary, 'lastTs'>, now: number): boolean {
  return storm.lastTs >= now - STORM_ACTIVE_MS;
}

/**
 * How a storm list is ordered: `first` by first attempt (the detector's order), `rank` active storms first, then
 * the most avoidable attempts, then the most recent (what to look at first), `newest` by latest start.
 */
export const STORM_ORDERS = ['first', 'rank', 'newest'] as const;
export type StormOrder = (typeof STORM_ORDERS)[number];

/** Lists order storms by first attempt, then kind, then id: a total order, whatever found them. */
export function byStormOrder(a: StormSummary, b: StormSummary): number {
  return a.firstTs - b.firstTs || compareText(a.kind, b.kind) || compareText(a.id, b.id);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = (1n << 64n) - 1n;

/**
 * `kind:` + 64-bit FNV-1a of the parts: stable across runs and stores, and pure (no crypto module needed). The first
 * attempt is its id and time, as the store keys an event: logs reuse ids, and by id alone two storms of one client
 * and server whose first attempts shared an id were one row, the second overwriting the first.
 */
export function stormId(kind: StormKind, client: string, server: string, first: { id: string; ts: number }): string {
  const text = JSON.stringify([kind, client, server, first.id, first.ts]);
  let h = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * FNV_PRIME) & MASK_64;
  }
  return `${kind}:${h.toString(16).padStart(16, '0')}`;
}
