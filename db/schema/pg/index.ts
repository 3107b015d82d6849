export { events } from './events.ts';
export { gatePartitions } from './gate-partitions.ts';
export { rollupHour, rollupMinute } from './rollups.ts';
export { servers } from './servers.ts';
