import { METHOD_FAILURE_COUNTS } from '../counters/families.ts';
import { counterTables } from './counter-tables.ts';

const [hour, minute] = counterTables(METHOD_FAILURE_COUNTS, ['server', 'start', 'method']);
if (hour === undefined || minute === undefined) throw new Error('method failures: an hour and a minute level');

/** Counted failures per server and JSON-RPC method (db/counters/families.ts): a server page's window reads its own. */
export const methodFailureHour = hour;
export const methodFailureMinute = minute;
