import { HOUR_MS, MINUTE_MS } from '../../shared/analysis/time-buckets.ts';

/** A counter table and the width of its time buckets. */
export interface Level {
  table: string;
  size: number;
}

const FIVE_MINUTES = 5 * MINUTE_MS;

/**
 * Every counter table, by family, coarse to fine: the one list the writers (db/counters/*.ts), the readers (their
 * range cover) and retention (db/queries/retention.ts) take their tables from. A family's tables are created by the
 * migrations, which rebuild a new family from the stored events.
 */
export const COUNTER_FAMILIES = {
  /** Per (server, client): from 5 minutes, a minute level held about one row per event (migration pair_rollups_from_5min). */
  pair: [
    { table: 'rollup_hour', size: HOUR_MS },
    { table: 'rollup_5min', size: FIVE_MINUTES },
  ],
  server: [
    { table: 'rollup_server_hour', size: HOUR_MS },
    { table: 'rollup_server_5min', size: FIVE_MINUTES },
    { table: 'rollup_server_minute', size: MINUTE_MS },
  ],
  client: [
    { table: 'rollup_client_hour', size: HOUR_MS },
    { table: 'rollup_client_5min', size: FIVE_MINUTES },
    { table: 'rollup_client_minute', size: MINUTE_MS },
  ],
  avoidable: [
    { table: 'rollup_avoidable_hour', size: HOUR_MS },
    { table: 'rollup_avoidable_5min', size: FIVE_MINUTES },
    { table: 'rollup_avoidable_minute', size: MINUTE_MS },
  ],
  /** The whole federation's: a day's chart of all servers reads ~25x fewer rows than from the family per server. */
  fleet: [
    { table: 'rollup_fleet_hour', size: HOUR_MS },
    { table: 'rollup_fleet_5min', size: FIVE_MINUTES },
    { table: 'rollup_fleet_minute', size: MINUTE_MS },
  ],
  codes: [
    { table: 'code_hour', size: HOUR_MS },
    { table: 'code_minute', size: MINUTE_MS },
  ],
  /** Without the client; its minutes are the per-client context_minute's. */
  contextServer: [
    { table: 'context_server_hour', size: HOUR_MS },
    { table: 'context_server_5min', size: FIVE_MINUTES },
  ],
  context: [{ table: 'context_minute', size: MINUTE_MS }],
  identities: [{ table: 'identity_hour', size: HOUR_MS }],
  /** Failures per server and pair of actionability profiles (migration actionability, ADR 13). */
  actionability: [
    { table: 'actionability_hour', size: HOUR_MS },
    { table: 'actionability_minute', size: MINUTE_MS },
  ],
  /** The decision store's audit: denials that did not hold, replayed refusals (ADR 15), per server and client. */
  denials: [{ table: 'denial_hour', size: HOUR_MS }],
  /** The same per client and per server alone: a fleet's window reads their rows, not every pair's. */
  denialsByClient: [{ table: 'denial_client_hour', size: HOUR_MS }],
  denialsByServer: [{ table: 'denial_server_hour', size: HOUR_MS }],
  /**
   * Requests per era, and MCP 2026-07-28's input requests among them (db/counters/eras.ts), per server and per client
   * alone: a server's page reads its own rows, the Clients screen its clients', never every pair's.
   */
  erasByServer: [
    { table: 'era_server_hour', size: HOUR_MS },
    { table: 'era_server_minute', size: MINUTE_MS },
  ],
  erasByClient: [
    { table: 'era_client_hour', size: HOUR_MS },
    { table: 'era_client_minute', size: MINUTE_MS },
  ],
} as const satisfies Record<string, readonly Level[]>;

/** Every counter table once. */
export const COUNTER_TABLES: readonly Level[] = Object.values(COUNTER_FAMILIES).flat();
