/** Every table of both stores, declared once (tables.ts); db/schema/pg.ts and db/schema/sqlite.ts build them. */
export {
  alertDeliveries,
  alertDeliveryAttempts,
  alertHistory,
  alertInstances,
  alertRules,
  settings,
} from './alerts.ts';
export { codeHour, codeMinute } from './code-rollups.ts';
export { contextMinute, contextServer5Min, contextServerHour } from './context-rollup.ts';
export { eventBodies } from './event-bodies.ts';
export { events } from './events.ts';
export { foldQueue } from './fold-queue.ts';
export { gateKeys } from './gate-keys.ts';
export { gatePartitions } from './gate-partitions.ts';
export { gatePending } from './gate-pending.ts';
export { gateRuns } from './gate-runs.ts';
export { identityHour } from './identity-hours.ts';
export {
  rollup5Min,
  rollupAvoidable5Min,
  rollupAvoidableHour,
  rollupAvoidableMinute,
  rollupClient5Min,
  rollupClientHour,
  rollupClientMinute,
  rollupFleet5Min,
  rollupFleetHour,
  rollupFleetMinute,
  rollupHour,
  rollupServer5Min,
  rollupServerHour,
  rollupServerMinute,
} from './rollups.ts';
export { servers } from './servers.ts';
export { storms } from './storms.ts';
