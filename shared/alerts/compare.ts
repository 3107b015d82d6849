/** The terms of a threshold, apart from the rule schema so that the browser can use them without zod. */
export const COMPARATORS = ['>=', '>', '<=', '<'] as const;
export type Comparator = (typeof COMPARATORS)[number];

/** What a rule does when an ungrouped metric has no reading (a rate over no traffic). */
export const NO_DATA = ['ok', 'keep_state', 'alerting'] as const;
export type NoData = (typeof NO_DATA)[number];

/** Whether `value` meets `threshold` under the comparator. */
export function meets(comparator: Comparator, value: number, threshold: number): boolean {
  switch (comparator) {
    case '>=':
      return value >= threshold;
    case '>':
      return value > threshold;
    case '<=':
      return value <= threshold;
    case '<':
      return value < threshold;
  }
}
