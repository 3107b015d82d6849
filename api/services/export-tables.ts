import { BUCKETS } from '../../shared/classify/types.ts';
import type { ExportTable } from '../../shared/export/rows.ts';

/**
 * What each dashboard table downloads as (shared/export/rows.ts): its CSV columns, paths into the rows its JSON
 * answer lists. Kept beside each other so that a column added to an answer has one place to be offered.
 */

/**
 * GET /events: every stored field of an event, its frames as JSON text; for a request its client and a proxy both
 * logged, what the proxy's record saw beside it (NDJSON carries that record whole).
 */
export const EVENTS_TABLE: ExportTable = {
  name: 'events',
  columns: [
    'id',
    'ts',
    'source',
    'client',
    'server',
    'session',
    'protocol',
    'method',
    'http.method',
    'http.path',
    'http.status',
    'http.requestId',
    'rpcCode',
    'latencyMs',
    'identity',
    'counted',
    'partner',
    'bucket',
    'kind',
    'rule',
    'evidence',
    'avoidable',
    'gateReason',
    'blockedBy',
    'request',
    'response',
    'proxy',
    'partnerRecord.source',
    'partnerRecord.ts',
    'partnerRecord.http.status',
    'partnerRecord.latencyMs',
    'partnerRecord.bucket',
    'partnerRecord.proxy',
  ],
};

const BUCKET_COLUMNS = BUCKETS.map((bucket) => `buckets.${bucket}`);

/** GET /servers. */
export const SERVERS_TABLE: ExportTable = {
  name: 'servers',
  columns: ['server', 'hasDiscovery', 'requests', 'avoidable', ...BUCKET_COLUMNS],
};

/** GET /storms. */
export const STORMS_TABLE: ExportTable = {
  name: 'storms',
  columns: [
    'id',
    'kind',
    'client',
    'server',
    'key',
    'paths',
    'attempts',
    'avoidable',
    'firstTs',
    'lastTs',
    'firstFailure.bucket',
    'firstFailure.kind',
  ],
};

/** GET /storms/:id: the storm's attempts, one a row. */
export const STORM_ATTEMPTS_TABLE: ExportTable = {
  name: 'storm-attempts',
  columns: [
    'id',
    'ts',
    'status',
    'rpcCode',
    'answered',
    'latencyMs',
    'bucket',
    'kind',
    'avoidable',
    'blockedBy',
    'gate',
  ],
};

/** GET /identities. */
export const IDENTITIES_TABLE: ExportTable = {
  name: 'identities',
  columns: [
    'identity',
    'server',
    'method',
    'sends',
    'represented',
    'firstSeen',
    'lastSeen',
    'last.id',
    'last.bucket',
    'last.kind',
    'last.rule',
    'alarms.0.count',
    'alarms.0.start',
    'alarms.0.end',
  ],
};

/** GET /clients. */
export const CLIENTS_TABLE: ExportTable = {
  name: 'clients',
  columns: [
    'client',
    'requests',
    'avoidable',
    'share',
    'probedWithoutDiscovery',
    'retriedAfterRefusal',
    'retriedBeforeRetryAfter',
    'retriedPastBudget',
    'identicalAfterAmbiguous',
    'hurtsMost',
  ],
};
