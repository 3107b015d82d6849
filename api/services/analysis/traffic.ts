import { contextRows } from '../../../db/counters/context.ts';
import { avoidablePairRows, conductRows, countRows } from '../../../db/counters/rollups.ts';
import { serverInfo } from '../../../db/queries/analysis.ts';
import type { EventFilter } from '../../../db/queries/events.ts';
import { orderedStormRows, stormCounts, stormsComplete } from '../../../db/queries/storms.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { addClientCounts, addServerCost, conductReport, emptyConduct } from '../../../shared/analysis/conduct.ts';
import {
  addContextCount,
  type ContextGap,
  contextTrend,
  emptyContextGap,
  gapSummary,
} from '../../../shared/analysis/context-gap.ts';
import {
  byStormOrder,
  STORM_ACTIVE_MS,
  type StormOrder,
  type StormSummary,
} from '../../../shared/analysis/storm-model.ts';
import {
  emptySeries,
  MAX_CHOSEN_BUCKETS,
  STEP_NAMES,
  type StepName,
  stepFor,
} from '../../../shared/analysis/time-buckets.ts';
import type { ContextScope } from '../../../shared/analysis/types.ts';
import { BUCKETS, type Bucket } from '../../../shared/classify/types.ts';
import { shareOf } from '../../../shared/share.ts';
import { ServiceError } from '../service-error.ts';
import { clientEras, type EraMix } from './eras.ts';
import type { Window } from './load.ts';
import { stormSummary } from './storm-ids.ts';

type Scope = Window & Pick<EventFilter, 'server' | 'client'>;

export interface StormList {
  /** The first `limit` in the order asked for, whole (also where they reach outside the window). */
  storms: StormSummary[];
  /** Storms in the window, and of them active (a last attempt within STORM_ACTIVE_MS of `now`). */
  total: number;
  active: number;
  /** False while the storms of events stored before storms were kept are being built: the list may miss some. */
  complete: boolean;
}

/** Storms that ran at some time in the window, from the rows the ingest path keeps. */
export async function stormsIn(
  db: SqlRunner,
  scope: Scope,
  { order, limit, now }: { order: StormOrder; limit: number; now: number },
): Promise<StormList> {
  const activeSince = now - STORM_ACTIVE_MS;
  const [storms, counts, complete] = await Promise.all([
    orderedStormRows(db, scope, order, limit, activeSince),
    stormCounts(db, scope, activeSince),
    stormsComplete(db),
  ]);
  // The SQL order's last tie-break is the id under the database's collation; this makes it the detector's.
  if (order === 'first') storms.sort(byStormOrder);
  return { storms: storms.map(stormSummary), ...counts, complete };
}

/** Per server context gap, from the per-minute context counts kept at ingest; servers by name. */
export async function contextGapIn(db: SqlRunner, scope: Scope) {
  const step = stepFor(scope.to - scope.from);
  const byServer = new Map<string, ContextGap>();
  for (const row of await contextRows(db, scope, step)) {
    let gap = byServer.get(row.server);
    if (gap === undefined) {
      // Counted in the answer's own steps: a day's minute buckets were five times the keys for the trend to merge.
      gap = emptyContextGap(step);
      byServer.set(row.server, gap);
    }
    const context = { requested: row.requested as ContextScope, applied: row.applied as ContextScope | null };
    addContextCount(gap, row.start, { ...context, reason: row.reason }, row.requests);
  }
  return [...byServer]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([server, gap]) => ({
      server,
      ...gapSummary(gap),
      trend: contextTrend(gap, scope.from, scope.to, step),
      step,
    }));
}

/**
 * Per client conduct, from the rollups' conduct counters per client (kept at ingest with the gate verdicts), the
 * servers each hurts most from the avoidable counts per (client, server), and the eras it speaks (null where the read
 * names a server).
 */
export async function clientsIn(db: SqlRunner, scope: Scope) {
  const acc = emptyConduct();
  const [conduct, costs, eras] = await Promise.all([
    conductRows(db, scope, false),
    avoidablePairRows(db, scope),
    // Kept per client, not per pair: a read narrowed to a server has no client's eras.
    scope.server === undefined ? clientEras(db, scope, scope.client) : new Map<string, EraMix>(),
  ]);
  for (const row of conduct) addClientCounts(acc, row.client, { ...row, probedWithoutDiscovery: row.probed });
  for (const row of costs) addServerCost(acc, row.client, row.server, row.avoidable);
  return conductReport(acc).map((client) => ({
    ...client,
    share: shareOf(client.avoidable, client.requests),
    eras: eras.get(client.client) ?? null,
  }));
}

export interface BucketCounts {
  requests: number;
  avoidable: number;
  buckets: Record<Bucket, number>;
}

/** Per server: traffic per bucket and avoidable requests, whether a discovery document is known. */
export async function serversIn(db: SqlRunner, scope: Scope) {
  const [rows, info] = await Promise.all([countRows(db, scope, null, ['server']), serverInfo(db)]);
  const counts = new Map<string, BucketCounts>();
  for (const row of rows) {
    const entry = counts.get(row.server) ?? emptyCounts();
    addRow(entry, row);
    counts.set(row.server, entry);
  }
  return info
    .filter((server) => scope.server === undefined || server.name === scope.server)
    .map((server) => ({
      server: server.name,
      hasDiscovery: server.hasDiscovery === 1,
      ...(counts.get(server.name) ?? emptyCounts()),
    }));
}

/** Counted requests per time bucket and classification bucket; every step of the range is present. */
/** Counts per bucket per step: the step asked for, else the one that fits the range (shared/analysis/time-buckets.ts). */
export async function timeseriesIn(db: SqlRunner, scope: Scope, chosen?: StepName) {
  const step = chosen === undefined ? stepFor(scope.to - scope.from) : STEP_NAMES[chosen];
  if ((scope.to - scope.from) / step > MAX_CHOSEN_BUCKETS) {
    throw new ServiceError(
      'invalid_request',
      `step ${chosen} makes more than ${MAX_CHOSEN_BUCKETS} buckets of this range`,
      {
        field: 'step',
        fix: 'Choose a coarser step or a shorter range (from, to); without step the API picks one that fits.',
      },
    );
  }
  const rows = await countRows(db, scope, step, []);
  const byStart = new Map(emptySeries(scope.from, scope.to, step).map((start) => [start, emptyCounts()]));
  for (const row of rows) {
    const point = byStart.get(row.start);
    if (point !== undefined) addRow(point, row);
  }
  return { step, points: [...byStart].map(([start, counts]) => ({ start, ...counts })) };
}

function addRow(counts: BucketCounts, row: { bucket: string; requests: number; avoidable: number }): void {
  counts.requests += row.requests;
  counts.avoidable += row.avoidable;
  counts.buckets[row.bucket as Bucket] += row.requests;
}

function emptyCounts(): BucketCounts {
  return {
    requests: 0,
    avoidable: 0,
    buckets: Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>,
  };
}
