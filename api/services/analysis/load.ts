import { type AnalysisFilter, analysisEventOfRow, analysisRows } from '../../../db/queries/analysis.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import type { GateBlock, GateReason, GateVerdict } from '../../../shared/analysis/gate-types.ts';
import { requestKey } from '../../../shared/analysis/request-key.ts';
import type { AnalysisEvent } from '../../../shared/analysis/types.ts';

/**
 * A range an analysis reads, with where retention's horizon lies (api/services/retention.ts keptData): required, so a
 * reader cannot forget that the raw events before it are gone and count the range as if nothing were deleted.
 */
export interface Window {
  from: number;
  to: number;
  eventsFrom: number | null;
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
  const events = rows.map(analysisEventOfRow);
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
