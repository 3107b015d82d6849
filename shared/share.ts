/**
 * The share of `part` in `whole`, or null when `whole` is 0: a share of nothing is no reading, never 0 % (an alert on
 * a rate has no value then, and the dashboard shows a dash). The one home of every ratio the product shows.
 */
export function shareOf(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}
