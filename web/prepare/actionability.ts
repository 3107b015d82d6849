import { BITS, type Bit, VIEWS, type View } from '../../shared/actionability/profile.ts';

export { BITS, type Bit, VIEWS, type View };

/** What each bit means, for column titles and the event view (seed 004 section III). */
export const BIT_MEANING: Record<Bit, string> = {
  D: 'failure detected: software can tell it from a success',
  P: 'coarse policy: repair, authenticate, wait, choose another, or stop',
  C: 'cause: which failure this is (unknown tool, bad argument, rate, upstream …)',
  T: 'repair target: the tool, parameter, credential or dependency to change',
  E: 'executable repair: the replacement request itself',
  R: 'replay constraints: timing, whether the same request may be sent again, side effects',
};

export const VIEW_LABEL: Record<View, string> = {
  control: 'Typed fields only',
  transport: 'With HTTP status',
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

/** Profiles most frequent first, as `[profile, failures]`, with the bits each one earns spelled out ("D P"). */
export function profileRows(counts: BitCounts): { profile: string; failures: number; bits: string }[] {
  return Object.entries(counts.profiles)
    .sort(([a, n], [b, m]) => m - n || (a < b ? 1 : -1))
    .map(([profile, failures]) => ({ profile, failures, bits: bitsOf(profile) }));
}

/** The bits a `110000` profile earns, spelled out: "D P", or "none". */
export function bitsOf(profile: string): string {
  const earned = BITS.filter((_, i) => profile[i] === '1');
  return earned.length === 0 ? 'none' : earned.join(' ');
}

/** The view a URL names, the control view otherwise. */
export function viewOf(text: string | null): View {
  return text === 'transport' ? 'transport' : 'control';
}
