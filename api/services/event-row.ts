import type { EventRow } from '../../db/event-row.ts';
import { classify } from '../../shared/classify/index.ts';
import type { ServerPolicy } from '../../shared/classify/types.ts';
import type { LensEvent } from '../../shared/event.ts';
import { eventIdOf } from '../../shared/event-id.ts';
import { correlationOf, rpcErrorCodeOf, rpcMethodOf } from '../../shared/frames.ts';
import { requestIdentity } from '../../shared/identity.ts';

/** Everything the store keeps of one event: its columns, its classification and the line it came from. */
export function toEventRow(event: LensEvent, body: string, policy: ServerPolicy): EventRow {
  const classification = classify(event, policy);
  const http = event.http;
  return {
    eventId: eventIdOf(event, body),
    ts: event.ts,
    source: event.source,
    client: event.client ?? null,
    server: event.server,
    session: event.session ?? null,
    protocol: event.protocol,
    rpcMethod: rpcMethodOf(event),
    httpMethod: http?.method?.toUpperCase() ?? null,
    httpPath: http?.path ?? null,
    httpStatus: http?.status ?? null,
    rpcCode: rpcErrorCodeOf(event),
    latencyMs: event.latencyMs ?? null,
    timeout: event.timeout ? 1 : 0,
    discoveryRead: event.discoveryRead === undefined ? null : event.discoveryRead ? 1 : 0,
    retryAfter: http?.retryAfter ?? null,
    identity: requestIdentity(event.server, event.request),
    correlation: correlationOf(event),
    counted: 1,
    bucket: classification.bucket,
    kind: classification.kind,
    rule: classification.rule,
    evidence: classification.evidence,
    body,
  };
}
