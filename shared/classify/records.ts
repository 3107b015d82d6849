/**
 * Records that are not a request with an outcome (ADR 18): what the record is decides before anything it carries.
 */
import { outcome } from './outcome.ts';
import type { Signals } from './signals.ts';
import type { Classification } from './types.ts';

const SERVER_EVENT = outcome('record.server_event', 'unknown', 'server_event', 'none');
const OUTCOME_UNKNOWN = outcome('record.outcome_unknown', 'unknown', 'outcome_unknown', 'none');
const CONNECTED = outcome('record.connection', 'ok', 'ok', 'none');
const NOT_CONNECTED = outcome('record.connection', 'transient', 'timeout', 'timeout');

/** A stderr line, an exit, a connect: something the server did outside a request. */
export function serverEvent(s: Signals): Classification | undefined {
  return s.record === 'server_event' ? SERVER_EVENT : undefined;
}

/** A request its log shows without an outcome: a blind spot, neither a success nor a failure. */
export function outcomeUnknown(s: Signals): Classification | undefined {
  return s.record === 'outcome_unknown' ? OUTCOME_UNKNOWN : undefined;
}

/**
 * A connection attempt a lifecycle log shows without frames (ADR 19): connected is a success; timed out, or ended
 * (an exit, a close) before it connected, is a timeout, as a request its connection outlived is for the frame
 * readers. One rule for both, so that the storm detector knows a connect by the rule that read it.
 */
export function connection(s: Signals): Classification | undefined {
  if (s.record !== 'connection') return undefined;
  return s.timeout ? NOT_CONNECTED : CONNECTED;
}
