export { events } from './events.ts';
export { servers } from './servers.ts';
