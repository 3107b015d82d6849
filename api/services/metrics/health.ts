import { deliveriesPerStatus } from '../../../db/queries/alerts.ts';
import { storeBytes } from '../../../db/queries/store-size.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import type { MetricFamily } from '../../../shared/metrics/exposition.ts';
import { analysisLag } from '../analysis-lag.ts';
import type { ProcessMetrics } from '../process-metrics.ts';

/** A notification's settled statuses (shared/alerts/delivery.ts): each only ever grows. */
const SETTLED = ['delivered', 'refused', 'failed'] as const;

/**
 * The product's own health: the analysis lag (api/services/analysis-lag.ts, as /health reports it), notifications by
 * delivery status and the database's size from the store; lines ingested and the durations of folds and alert
 * evaluations from this process (api/services/process-metrics.ts).
 */
export async function healthMetrics(db: SqlRunner, own: ProcessMetrics): Promise<MetricFamily[]> {
  const [lag, deliveries, bytes] = await Promise.all([analysisLag(db), deliveriesPerStatus(db), storeBytes(db)]);
  const delivered = (status: string) => deliveries.find((row) => row.status === status)?.deliveries ?? 0;
  const gauge = (name: string, help: string, value: number): MetricFamily => ({
    type: 'gauge',
    name,
    help,
    samples: [{ labels: [], value }],
  });
  return [
    {
      type: 'counter',
      name: 'lens_ingest_lines',
      help: 'Lines (or spans) sent to ingest by this process since it started, per outcome: stored, already stored, refused.',
      samples: (['accepted', 'duplicate', 'rejected'] as const).map((outcome) => ({
        labels: [['outcome', outcome]],
        value: own.lines[outcome],
      })),
    },
    gauge(
      'lens_analysis_lag_seconds',
      'How long the oldest stored event not yet in the counts has waited.',
      lag.lagMs / 1000,
    ),
    gauge('lens_analysis_pending_events', 'Events stored and not yet folded into the counts.', lag.pendingEvents),
    gauge(
      'lens_analysis_pending_partitions',
      'Partitions whose gate replay runs behind the commit.',
      lag.pendingPartitions,
    ),
    {
      type: 'histogram',
      name: 'lens_fold_duration_seconds',
      help: 'How long each fold of stored events into the counts took, in this process since it started.',
      samples: [own.folds.sample()],
    },
    {
      type: 'histogram',
      name: 'lens_alert_evaluation_duration_seconds',
      help: "How long each alert rule's evaluation took, in this process since it started.",
      samples: [own.alertEvaluations.sample()],
    },
    {
      type: 'counter',
      name: 'lens_alert_deliveries',
      help: 'Alert notifications settled, per status: delivered, refused by the receiver (4xx), failed after retries.',
      samples: SETTLED.map((status) => ({ labels: [['status', status]], value: delivered(status) })),
    },
    gauge(
      'lens_alert_deliveries_pending',
      'Alert notifications waiting for a first attempt or a retry.',
      delivered('pending'),
    ),
    gauge('lens_store_size_bytes', "The database's size as its engine counts it.", bytes),
  ];
}
