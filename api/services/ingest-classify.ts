import type { EventRow } from '../../db/event-row.ts';
import { storedProfile } from '../../shared/actionability/index.ts';
import { toAnalysisEvent } from '../../shared/analysis/from-event.ts';
import { classify } from '../../shared/classify/index.ts';
import type { ServerPolicy } from '../../shared/classify/types.ts';
import { storedCorrelation } from '../../shared/correlation-key.ts';
import type { LensEvent } from '../../shared/event.ts';
import { eventIdOf } from '../../shared/event-id.ts';
import { correlationOf } from '../../shared/frames.ts';
import { requestIdentity } from '../../shared/identity.ts';

/**
 * Everything the store keeps of one event: its columns, its classification and the line it came from. The columns
 * the analyses read are derived as they derive them (toAnalysisEvent); the gate reads them back in the fold.
 */
export function buildEvent(event: LensEvent, body: string, policy: ServerPolicy): EventRow {
  const classification = classify(event, policy);
  const id = eventIdOf(event);
  // seq 0: the gate orders by (ts, id) so that arrival order never changes a verdict.
  const analysis = toAnalysisEvent(event, classification, {
    id,
    seq: 0,
    identity: requestIdentity(event.server, event.request, event.protocol),
    // A server event is no request (ADR 18): kept and listed, never counted.
    counted: event.record !== 'server_event',
  });
  return {
    eventId: id,
    ts: event.ts,
    source: event.source,
    client: analysis.client,
    server: event.server,
    session: analysis.session,
    protocol: event.protocol,
    rpcMethod: analysis.rpcMethod,
    rpcName: analysis.rpcName,
    era: analysis.era,
    protocolVersion: analysis.protocolVersion,
    continuation: analysis.continuation ? 1 : 0,
    httpMethod: analysis.httpMethod,
    httpPath: analysis.httpPath,
    httpStatus: analysis.httpStatus,
    rpcCode: analysis.rpcCode,
    latencyMs: analysis.latencyMs,
    timeout: event.timeout ? 1 : 0,
    discoveryRead: event.discoveryRead === undefined ? null : event.discoveryRead ? 1 : 0,
    retryAfter: event.http?.retryAfter ?? null,
    identity: analysis.identity,
    correlation: storedCorrelation(correlationOf(event)),
    requestId: event.http?.requestId ?? null,
    counted: event.record === 'server_event' ? 0 : 1,
    bucket: classification.bucket,
    kind: classification.kind,
    rule: classification.rule,
    evidence: classification.evidence,
    waitUntil: analysis.waitUntil,
    ctxRequested: analysis.context?.requested ?? null,
    ctxApplied: analysis.context?.applied ?? null,
    ctxReason: analysis.context?.reason ?? null,
    avoidable: 0,
    gateReason: null,
    actProfile: storedProfile(event, classification.bucket),
    sourceFormat: event.format ?? null,
    frames: (event.request === undefined ? 0 : 1) | (event.response === undefined ? 0 : 2),
    body,
  };
}
