import { HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { FOLDED_FAMILIES } from './families.ts';
import type { Level } from './family.ts';

/**
 * The counter tables of the families not declared in db/counters/families.ts, by family, coarse to fine. A family's
 * tables are created by the migrations, which rebuild a new family from the stored events.
 */
export const COUNTER_FAMILIES = {
  identities: [{ table: 'identity_hour', size: HOUR_MS }],
  /** The decision store's audit: denials that did not hold, replayed refusals (ADR 15), per server and client. */
  denials: [{ table: 'denial_hour', size: HOUR_MS }],
  /** The same per client and per server alone: a fleet's window reads their rows, not every pair's. */
  denialsByClient: [{ table: 'denial_client_hour', size: HOUR_MS }],
  denialsByServer: [{ table: 'denial_server_hour', size: HOUR_MS }],
} as const satisfies Record<string, readonly Level[]>;

/** Every counter table once: what retention (db/queries/retention.ts) trims. */
export const COUNTER_TABLES: readonly Level[] = [
  ...FOLDED_FAMILIES.flatMap((family) => family.levels),
  ...Object.values(COUNTER_FAMILIES).flat(),
];

/**
 * The counts finer than an hour, which go with the raw events (docs/adr/0009-retention.md): on PostgreSQL in day
 * partitions dropped with the events' days (db/queries/day-partitions.ts).
 */
export const FINE_COUNTER_TABLES = COUNTER_TABLES.filter((level) => level.size < HOUR_MS).map((level) => level.table);

/** The hour counts, kept to the longer horizon: on PostgreSQL in month partitions. */
export const HOUR_COUNTER_TABLES = COUNTER_TABLES.filter((level) => level.size >= HOUR_MS).map((level) => level.table);
