import { formatCount } from '../../format.ts';
import type { ListTotal } from '../../queries/events.ts';

/**
 * What a list of events says about its rows. A row is a request (the record it is counted by, with its other record
 * behind it), or with `records=all` a record: the words follow, so that a count never calls records requests.
 */

/** A noun in its two forms: "request" / "requests". */
export type Noun = readonly [one: string, many: string];

export const REQUESTS: Noun = ['request', 'requests'];
export const RECORDS: Noun = ['record', 'records'];
export const FAILURES: Noun = ['failure', 'failures'];

/** "50 of 120 requests shown", "1 of 1 request shown", "50 of more than 10,000 records shown". */
export function shownLine(shown: number, total: ListTotal | null, [one, many]: Noun): string {
  if (total === null) return `${formatCount(shown)} ${shown === 1 ? one : many} shown`;
  const of = total.capped ? `more than ${formatCount(total.count)}` : formatCount(total.count);
  const noun = !total.capped && total.count === 1 ? one : many;
  return `${formatCount(shown)} of ${of} ${noun} shown`;
}

/** Whether the open record is this row's: the request's own record, or the other one behind it. */
export function holdsRecord(row: { id: string; partnerRecord: { id: string } | null }, open: string | null): boolean {
  return open !== null && (row.id === open || row.partnerRecord?.id === open);
}
