import { type AnalysisFilter, type AnalysisRow, analysisRows } from '../../../db/queries/analysis.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import type { GateBlock, GateReason, GateVerdict } from '../../../shared/analysis/gate-types.ts';
import { requestKey } from '../../../shared/analysis/request-key.ts';
import type { AnalysisEvent, ContextScope } from '../../../shared/analysis/types.ts';
import type { Bucket } from '../../../shared/classify/types.ts';

export interface Window {
  from: number;
  to: number;
}

export interface Loaded {
  events: AnalysisEvent[];
  /** The verdicts stored at ingest (api/services/gate-maintenance.ts), keyed by event id. */
  verdicts: Map<string, GateVerdict>;
}

/**
 * Counted events of a window as the pure analyses in shared/analysis read them, with their stored gate verdicts.
 * The analyses themselves stay the one home of each number; this only loads.
 */
export async function loadAnalysis(db: SqlRunner, filter: AnalysisFilter): Promise<Loaded> {
  const rows = await analysisRows(db, filter);
  const events = rows.map(toAnalysisEvent);
  const verdicts = new Map<string, GateVerdict>();
  rows.forEach((row, index) => {
    const event = events[index] as AnalysisEvent;
    verdicts.set(row.eventId, {
      id: row.eventId,
      key: requestKey(event),
      avoidable: row.avoidable === 1,
      reason: row.gateReason as GateReason | null,
      blockedBy: row.blockedBy as GateBlock | null,
    });
  });
  return { events, verdicts };
}

export function toAnalysisEvent(row: AnalysisRow): AnalysisEvent {
  return {
    id: row.eventId,
    ts: row.ts,
    seq: 0,
    source: row.source === 'proxy' ? 'proxy' : 'client',
    client: row.client,
    server: row.server,
    session: row.session,
    httpMethod: row.httpMethod,
    httpPath: row.httpPath,
    httpStatus: row.httpStatus,
    rpcMethod: row.rpcMethod,
    rpcCode: row.rpcCode,
    latencyMs: row.latencyMs,
    identity: row.identity,
    bucket: row.bucket as Bucket,
    kind: row.kind,
    rule: row.rule,
    waitUntil: row.waitUntil,
    discoveryRead: row.discoveryRead === null ? null : row.discoveryRead === 1,
    counted: row.counted === 1,
    context:
      row.ctxRequested === null
        ? null
        : {
            requested: row.ctxRequested as ContextScope,
            applied: row.ctxApplied as ContextScope | null,
            reason: row.ctxReason,
          },
  };
}
