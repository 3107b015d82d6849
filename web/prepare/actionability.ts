import { BITS, type Bit, VIEWS, type View } from '../../shared/actionability/profile.ts';

export { BITS, type Bit, VIEWS, type View };

/**
 * Each of the six facts a failure's typed fields can give a client (DOMAIN.md section 8), named for what it lets the
 * client do: the column heads and the lists. The letters (D P C T E R) stay in the API and its filters.
 */
export const BIT_LABEL: Record<Bit, string> = {
  D: 'Detected',
  P: 'What to do',
  C: 'Cause',
  T: 'What to fix',
  E: 'Ready repair',
  R: 'Retry rules',
};

/** What each fact says, for a column's hint and an event's fields. */
export const BIT_MEANING: Record<Bit, string> = {
  D: 'Detected: software can tell this failure from a success',
  P: 'What to do: repair the request, authenticate, wait, use another tool, or stop',
  C: 'Cause: which failure this is (unknown tool, bad argument, rate limit, upstream …)',
  T: 'What to fix: the tool, parameter, credential or dependency to change',
  E: 'Ready repair: the corrected request itself, ready to send',
  R: 'Retry rules: whether and when the same request may be sent again',
};

export const VIEW_LABEL: Record<View, string> = {
  control: 'Typed fields only',
  transport: 'With HTTP status',
  content: 'With the text read',
};

/** Counts of one view as the API answers them. */
export interface BitCounts {
  failures: number;
  D: number;
  P: number;
  C: number;
  T: number;
  E: number;
  R: number;
  profiles: Record<string, number>;
}

/** Each bit's share of the failures; null without failures. */
export function bitShares(counts: BitCounts): Record<Bit, number | null> {
  const out = {} as Record<Bit, number | null>;
  for (const bit of BITS) out[bit] = counts.failures === 0 ? null : counts[bit] / counts.failures;
  return out;
}

/** Combinations of facts most frequent first, as `[profile, failures]`, each with the facts it gives in words. */
export function profileRows(counts: BitCounts): { profile: string; failures: number; facts: string }[] {
  return Object.entries(counts.profiles)
    .sort(([a, n], [b, m]) => m - n || (a < b ? 1 : -1))
    .map(([profile, failures]) => ({ profile, failures, facts: factsOf(profile) }));
}

/** The facts a `110000` profile gives, in words: "detected, what to do", or "none of the six". */
export function factsOf(profile: string): string {
  const earned = BITS.filter((_, i) => profile[i] === '1').map((bit) => BIT_LABEL[bit].toLowerCase());
  return earned.length === 0 ? 'none of the six' : earned.join(', ');
}

/** The view a URL names, the control view otherwise. */
export function viewOf(text: string | null): View {
  return VIEWS.find((view) => view === text) ?? 'control';
}
