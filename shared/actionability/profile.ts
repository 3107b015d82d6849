/**
 * Seed 004's actionability profile (section III; DOMAIN.md section 8): six capabilities of one failure, each coded
 * separately and none implying another. D failure detected, P coarse policy, C cause/subtype, T repair target,
 * E executable repair, R replay constraints. A profile is six bits, D the highest, so that it prints in the paper's
 * D/P/C/T/E/R order ("110000") and fits a small integer column.
 */
export const BITS = ['D', 'P', 'C', 'T', 'E', 'R'] as const;
export type Bit = (typeof BITS)[number];

/**
 * The two readings of a failure. `control`: the paper's control view, typed fields of the frame only, every string
 * opaque. `transport`: the control view plus what the HTTP exchange says (status, Retry-After), which the paper keeps
 * outside its boundary and an operator has anyway.
 */
export const VIEWS = ['control', 'transport'] as const;
export type View = (typeof VIEWS)[number];

/** 0..63; bit D is 32, R is 1. */
export type Profile = number;

/** The field path (dotted, from the event) that earned each bit earned: the paper's evidence pointer. */
export type BitEvidence = Partial<Record<Bit, string>>;

export interface Reading {
  profile: Profile;
  evidence: BitEvidence;
}

export const PROFILES = 64;

export const bitValue = (bit: Bit): number => 1 << (BITS.length - 1 - BITS.indexOf(bit));

export const hasBit = (profile: Profile, bit: Bit): boolean => (profile & bitValue(bit)) !== 0;

export const profileString = (profile: Profile): string => profile.toString(2).padStart(BITS.length, '0');

/** The profile a `110000` string names; undefined for anything else. */
export function parseProfile(text: string): Profile | undefined {
  return /^[01]{6}$/.test(text) ? Number.parseInt(text, 2) : undefined;
}

/** Componentwise dominance (section III): every capability `b` evidences, `a` evidences too. */
export const dominates = (a: Profile, b: Profile): boolean => (a & b) === b;

/**
 * Both views of one failure in one small integer, as the events table and the counts keep it: the control profile
 * in the low six bits, the transport profile above them.
 */
export const packViews = (control: Profile, transport: Profile): number => control | (transport << BITS.length);

export function unpackViews(packed: number): Record<View, Profile> {
  return { control: packed & (PROFILES - 1), transport: packed >> BITS.length };
}

/** Builds one reading, each bit taking the first field offered for it. */
export class ReadingBuilder {
  profile = 0;
  readonly evidence: BitEvidence = {};

  constructor(from?: Reading) {
    if (from !== undefined) {
      this.profile = from.profile;
      Object.assign(this.evidence, from.evidence);
    }
  }

  earn(bit: Bit, path: string): void {
    if (this.evidence[bit] !== undefined) return;
    this.evidence[bit] = path;
    this.profile |= bitValue(bit);
  }

  done(): Reading {
    return { profile: this.profile, evidence: this.evidence };
  }
}
