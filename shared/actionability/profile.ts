/**
 * Seed 004's actionability profile (section III; DOMAIN.md section 8): six capabilities of one failure, each coded
 * separately and none implying another. D failure detected, P coarse policy, C cause/subtype, T repair target,
 * E executable repair, R replay constraints. A profile is six bits, D the highest, so that it prints in the paper's
 * D/P/C/T/E/R order ("110000") and fits a small integer column.
 */
export const BITS = ['D', 'P', 'C', 'T', 'E', 'R'] as const;
export type Bit = (typeof BITS)[number];

/**
 * The three readings of a failure. `control`: the paper's control view, typed fields of the frame only, every string
 * opaque. `transport`: the control view plus what the HTTP exchange says (status, Retry-After), which the paper keeps
 * outside its boundary and an operator has anyway. `content`: the paper's content view, the control view plus what
 * the answer's text says, read by the lexical rules of shared/result-text.
 */
export const VIEWS = ['control', 'transport', 'content'] as const;
export type View = (typeof VIEWS)[number];

/** 0..63; bit D is 32, R is 1. */
export type Profile = number;

/** The field path (dotted, from the event) that earned each bit earned: the paper's evidence pointer. */
export type BitEvidence = Partial<Record<Bit, string>>;

/** For a bit earned by reading text: the lexical rule that fired and the text it fired on. */
export interface TextEvidence {
  rule: string;
  span: string;
}

export interface Reading {
  profile: Profile;
  evidence: BitEvidence;
  /** The content view only: per bit earned from text, the rule and span (its field is in `evidence`). */
  text?: Partial<Record<Bit, TextEvidence>>;
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
 * A failure only its text shows (DOMAIN.md section 8): `failure` for a success-shaped error (a result without
 * `isError` or an error frame whose text says the call failed), `throttle` when that text says the caller is rate
 * limited. Neither changes the event's bucket; both count as failures here.
 */
export interface Hidden {
  failure: boolean;
  throttle: boolean;
}

const HIDDEN_FAILURE = 1 << (3 * BITS.length);
const HIDDEN_THROTTLE = 1 << (3 * BITS.length + 1);

/**
 * The views of one failure in one integer, as the events table and the counts keep it: the control profile in the
 * low six bits, the transport profile above them, the content profile above that, then whether the failure is hidden
 * (bit 18) and a hidden throttle (bit 19). A hidden failure's packed value is at least 2^18, a hidden throttle's at
 * least 2^19, so a store selects either by comparison.
 */
export function packViews(views: Record<View, Profile>, hidden: Hidden = NOT_HIDDEN): number {
  const flags = (hidden.failure ? HIDDEN_FAILURE : 0) + (hidden.throttle ? HIDDEN_THROTTLE : 0);
  return views.control + views.transport * 2 ** BITS.length + views.content * 2 ** (2 * BITS.length) + flags;
}

export const NOT_HIDDEN: Hidden = { failure: false, throttle: false };

export const HIDDEN_FAILURE_AT_LEAST = HIDDEN_FAILURE;
export const HIDDEN_THROTTLE_AT_LEAST = HIDDEN_THROTTLE;

export function unpackViews(packed: number): Record<View, Profile> {
  const at = (view: number) => Math.floor(packed / 2 ** (view * BITS.length)) & (PROFILES - 1);
  return { control: at(0), transport: at(1), content: at(2) };
}

export function hiddenOf(packed: number): Hidden {
  return { failure: packed >= HIDDEN_FAILURE, throttle: packed >= HIDDEN_THROTTLE };
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

  private readonly text: Partial<Record<Bit, TextEvidence>> = {};

  earn(bit: Bit, path: string, text?: TextEvidence): void {
    if (this.evidence[bit] !== undefined) return;
    this.evidence[bit] = path;
    if (text !== undefined) this.text[bit] = text;
    this.profile |= bitValue(bit);
  }

  done(): Reading {
    return { profile: this.profile, evidence: this.evidence };
  }

  /** The reading with the text evidence of the bits read from text (the content view). */
  doneWithText(): Reading {
    return { ...this.done(), text: this.text };
  }
}
