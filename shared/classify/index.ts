/**
 * Classification of one event into a bucket and kind (DOMAIN.md section 4). Pure and allocation-light: it runs
 * on the ingest hot path for every event. The rule table and its order are documented in `rules.ts`.
 */
import type { LensEvent } from '../event.ts';
import { ambiguous } from './fallback.ts';
import { RULES } from './rules.ts';
import { readSignals } from './signals.ts';
import type { Classification, ServerPolicy } from './types.ts';

export {
  BUCKET_GUIDE,
  type BucketGuide,
  type Explanation,
  explain,
  explainRule,
  type RuleExplanation,
} from './explain.ts';
export { KIND_INFO, KINDS, type Kind, type KindInfo, SESSION_SCOPED_KINDS } from './kinds.ts';
export { RULES, type Rule, type RuleId } from './rules.ts';
export * from './types.ts';

/**
 * The bucket, kind, rule id and evidence of one event. The first matching rule wins. Default outcomes are shared
 * frozen objects: copy one before changing it.
 */
export function classify(event: LensEvent, policy: ServerPolicy): Classification {
  const signals = readSignals(event);
  for (const rule of RULES) {
    const match = rule.apply(signals, policy);
    if (match !== undefined) return match;
  }
  // Unreachable: the last rule matches every event. Kept so the type needs no assertion.
  return ambiguous(signals);
}
