/**
 * What the storm detector (shared/analysis/storm-tracker.ts) knows of one judged event: small plain data, so that a
 * partition's undecided tail can be kept between batches as JSON. Built once per event from the event and the gate's
 * verdict; everything DOMAIN.md section 6 asks of an attempt (whose conduct, what it probed, whether it re-opens a
 * connection) is decided here, in one place.
 */
import type { Bucket } from '../classify/types.ts';
import { isSentByServer } from '../frames.ts';
import { endpointLabel, pathOnly } from './request-key.ts';
import type { AnalysisEvent } from './types.ts';

/** Whose conduct an attempt is: the request's sender (section 6, "Whose conduct"). */
export type StormSide = 'client' | 'server';

export interface StormFact {
  id: string;
  ts: number;
  side: StormSide;
  bucket: Bucket;
  kind: string;
  avoidable: boolean;
  /** The gate's request key. */
  key: string;
  /** `POST /mcp`: the endpoint, as operators read it. */
  endpoint: string;
  /** This attempt's endpoint as a probe target (`endpointTarget`); a refusal of it blocks the endpoint. */
  endpointTarget: string;
  /** This attempt's JSON-RPC method at its path as a probe target; null without a method. */
  methodTarget: string | null;
  /** The target this attempt's refusal blocks, when it blocks an endpoint or a method: a probe storm's material. */
  probes: string | null;
  /**
   * A refusal of an endpoint outside the contract: a 404 `not_declared`, or a 405 (the HTTP method is not offered on
   * the path, so the method and path pair is no declared endpoint).
   */
  undeclared: boolean;
  /**
   * Opens a connection: `initialize`, `server/discover`, a body-less GET of an MCP endpoint (a stream), or a
   * lifecycle log's connection attempt (`record: "connection"`, read by the rule `record.connection`).
   */
  connect: boolean;
  /** A body-less GET: a stream. */
  stream: boolean;
  /** A round that answers an input request (MRTR, section 10): part of its call, never a re-presentation. */
  continuation: boolean;
  /** An answer that asks for input (MRTR): neither ok nor failed. */
  pending: boolean;
  /**
   * A GET or DELETE answered 405: a client opening a stream or ending a session the server does not keep (a 2025-era
   * client meeting a 2026-07-28 server, section 10), not a search for an interface. Such refusals alone make no probe
   * storm.
   */
  eraMismatch: boolean;
  /** What was sent, for a storm's title: `tools/call lookup_record`, `a sampling request`, `GET /mcp`. */
  what: string;
  /** What a connection attempt was, for a reconnect loop's title: its JSON-RPC method, or `GET (no body)`. */
  connectLabel: string;
}

const CONNECT_METHODS: ReadonlySet<string> = new Set(['initialize', 'server/discover']);
/** The rule that reads a lifecycle log's connection attempt (ADR 19): a connect without a frame or a path. */
const CONNECTION_RULE = 'record.connection';

/** The detector's view of one judged event, with the gate's verdict on it. */
export function stormFact(e: AnalysisEvent, verdict: { key: string; avoidable: boolean }): StormFact {
  const path = pathOnly(e.httpPath);
  const stream = e.httpMethod === 'GET' && e.rpcMethod === null;
  const endpointTarget = JSON.stringify(['endpoint', e.httpMethod, path]);
  const methodTarget = e.rpcMethod === null ? null : JSON.stringify(['method', path, e.rpcMethod]);
  const blocksEndpoint = e.bucket === 'refusal' && (e.kind === 'not_declared' || e.httpStatus === 405);
  const blocksMethod = e.bucket === 'refusal' && !blocksEndpoint && e.kind === 'not_supported';
  const started = e.rule === CONNECTION_RULE;
  return {
    id: e.id,
    ts: e.ts,
    side: isSentByServer(e.rpcMethod) ? 'server' : 'client',
    bucket: e.bucket,
    kind: e.kind,
    avoidable: verdict.avoidable,
    key: verdict.key,
    endpoint: started ? 'connection' : endpointLabel(e),
    endpointTarget,
    methodTarget,
    probes: blocksEndpoint ? endpointTarget : blocksMethod ? methodTarget : null,
    undeclared: e.kind === 'not_declared' || e.httpStatus === 405,
    connect:
      started || (e.rpcMethod !== null && CONNECT_METHODS.has(e.rpcMethod)) || (stream && isMcpEndpoint(e, path)),
    stream,
    continuation: e.continuation,
    pending: e.bucket === 'pending',
    eraMismatch: e.httpStatus === 405 && (e.httpMethod === 'GET' || e.httpMethod === 'DELETE'),
    what: whatWasSent(e),
    connectLabel: started ? 'server start' : (e.rpcMethod ?? `${e.httpMethod ?? 'no method'} (no body)`),
  };
}

/**
 * Whether a body-less GET opens an MCP stream: Streamable HTTP's GET on the endpoint, or the older SSE transport's.
 * A2A has no such GET, and a `/.well-known/` document (an agent or server card) is a read, not a connection.
 */
function isMcpEndpoint(e: AnalysisEvent, path: string | null): boolean {
  return e.protocol === 'mcp' && path !== null && !path.startsWith('/.well-known/');
}

function whatWasSent(e: AnalysisEvent): string {
  if (e.rpcMethod === 'sampling/createMessage') return 'a sampling request';
  // A tool call is told apart by its tool; other methods read well enough alone (`resources/read`, `GetTask`).
  if (e.rpcMethod === 'tools/call' && e.rpcName !== null) return `tools/call ${e.rpcName}`;
  if (e.rpcMethod !== null) return e.rpcMethod;
  return endpointLabel(e);
}

/** A probe target as operators read it: `GET /sse` for an endpoint, the method's name for a method. */
export function targetLabel(target: string): string {
  const [type, a, b] = JSON.parse(target) as [string, string | null, string | null];
  if (type === 'method') return b ?? '';
  return a === null ? (b ?? '') : `${a} ${b ?? ''}`;
}

/** Whether an attempt goes to one of the targets: its endpoint, or its method at its path. */
export function hitsAny(fact: StormFact, targets: ReadonlySet<string>): boolean {
  return targets.has(fact.endpointTarget) || (fact.methodTarget !== null && targets.has(fact.methodTarget));
}
