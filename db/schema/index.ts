/** Every table of both stores, declared once (tables.ts); db/schema/pg.ts and db/schema/sqlite.ts build them. */
export * from './actionability.ts';
export * from './alerts.ts';
export * from './code-rollups.ts';
export * from './context-rollup.ts';
export * from './denials.ts';
export * from './era-counts.ts';
export * from './event-bodies.ts';
export * from './events.ts';
export * from './fold-queue.ts';
export * from './gate-keys.ts';
export * from './gate-partitions.ts';
export * from './gate-pending.ts';
export * from './identity-hours.ts';
export * from './rollups.ts';
export * from './servers.ts';
export * from './storms.ts';
export * from './totals.ts';
