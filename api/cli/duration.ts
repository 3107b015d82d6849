import { DAY_MS, HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import { CliError } from './cli-error.ts';

const UNITS_MS = { h: HOUR_MS, d: DAY_MS } as const;

/**
 * `30d`, `400d`, `12h`: a retention horizon. Nothing finer than an hour: counts are kept in whole hours. `examples`
 * finishes the message for text that is none, where a flag takes something else too.
 */
export function parseHorizon(flag: string, text: string, examples = 'such as 30d or 12h'): number {
  const match = /^([1-9]\d{0,5})([hd])$/.exec(text);
  if (match === null) throw new CliError(`${flag} takes a number of hours or days, ${examples}; got "${text}"`, 2);
  return Number(match[1]) * UNITS_MS[match[2] as keyof typeof UNITS_MS];
}

const WAIT_UNITS_MS = { s: 1000, m: 60_000, h: HOUR_MS } as const;

/** `30s`, `5m`, `1h`: how long to keep trying something. */
export function parseWait(flag: string, text: string): number {
  const match = /^([1-9]\d{0,5})([smh])$/.exec(text);
  if (match === null)
    throw new CliError(`${flag} takes a number of seconds, minutes or hours, such as 5m; got "${text}"`, 2);
  return Number(match[1]) * WAIT_UNITS_MS[match[2] as keyof typeof WAIT_UNITS_MS];
}
