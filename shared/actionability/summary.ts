import { nameRecordOf } from '../name-record.ts';
import {
  BITS,
  type Bit,
  dominates,
  hasBit,
  hiddenOf,
  PROFILES,
  profileString,
  unpackViews,
  VIEWS,
  type View,
} from './profile.ts';

/** One view's counts over a set of failures: how many earned each bit, and how many had each profile. */
export type ViewCounts = { failures: number; profiles: Record<string, number> } & Record<Bit, number>;

/**
 * Failures only the text of their answer shows (DOMAIN.md section 8), counted among `failures` of every view:
 * success-shaped errors, and of them the hidden throttles (the text says the caller is rate limited).
 */
export interface HiddenCounts {
  failures: number;
  throttles: number;
}

export type ActionabilityCounts = Record<View, ViewCounts> & { hidden: HiddenCounts };

/** Counted failures of one packed set of profiles (shared/actionability/profile.ts packViews). */
export interface PackedCount {
  packed: number;
  failures: number;
}

function emptyView(): ViewCounts {
  return { failures: 0, D: 0, P: 0, C: 0, T: 0, E: 0, R: 0, profiles: {} };
}

/** Every view's counts, and the hidden failures, from failures counted per packed profiles. Profiles print most frequent first. */
export function countViews(rows: Iterable<PackedCount>): ActionabilityCounts {
  const perView = Object.fromEntries(VIEWS.map((view) => [view, new Array<number>(PROFILES).fill(0)])) as Record<
    View,
    number[]
  >;
  const hidden: HiddenCounts = { failures: 0, throttles: 0 };
  for (const { packed, failures } of rows) {
    const views = unpackViews(packed);
    for (const view of VIEWS) perView[view][views[view]] = (perView[view][views[view]] ?? 0) + failures;
    const flags = hiddenOf(packed);
    if (flags.failure) hidden.failures += failures;
    if (flags.throttle) hidden.throttles += failures;
  }
  const counts = { control: emptyView(), transport: emptyView(), content: emptyView(), hidden };
  for (const view of VIEWS) {
    const into = counts[view];
    const order = perView[view].map((n, profile) => [profile, n] as const).filter(([, n]) => n !== 0);
    order.sort(([a, n], [b, m]) => m - n || b - a);
    for (const [profile, n] of order) {
      into.failures += n;
      into.profiles[profileString(profile)] = n;
      for (const bit of BITS) if (hasBit(profile, bit)) into[bit] += n;
    }
  }
  return counts;
}

/** Each bit's share of the view's failures; null when there were none. */
export function shares(counts: ViewCounts): Record<Bit, number | null> {
  const out = {} as Record<Bit, number | null>;
  for (const bit of BITS) out[bit] = counts.failures === 0 ? null : counts[bit] / counts.failures;
  return out;
}

/**
 * The share of failures whose typed fields select no coarse policy (no P in the control view): what a client can only
 * act on by reading prose. Null without failures. The alert metric `failures_without_policy` reads it.
 */
export function withoutPolicyShare(counts: ViewCounts): number | null {
  return counts.failures === 0 ? null : (counts.failures - counts.P) / counts.failures;
}

/** Bits earned per failure on average (0..6): what the ranking of servers orders by. */
export function bitsPerFailure(counts: ViewCounts): number {
  if (counts.failures === 0) return 0;
  return BITS.reduce((sum, bit) => sum + counts[bit], 0) / counts.failures;
}

/**
 * Componentwise dominance between servers, the paper's order lifted from one failure to a server's failures: `a`
 * dominates `b` when, for every bit, at least as large a share of a's failures earns it. For servers that each have
 * one profile it is the paper's order exactly. Servers without failures are in no comparison.
 */
export function shareDominates(a: ViewCounts, b: ViewCounts): boolean {
  if (a.failures === 0 || b.failures === 0) return false;
  // Cross-multiplied: exact in integers, no rounding of the shares.
  return BITS.every((bit) => a[bit] * b.failures >= b[bit] * a.failures);
}

export interface Ranked<T> {
  item: T;
  /** The servers (by name) whose view this one dominates and that do not dominate it back. */
  dominates: string[];
  dominatedBy: string[];
}

/**
 * Servers ranked by what their errors let a client decide in one view: most bits per failure first, then by name;
 * each with the servers it strictly dominates and is strictly dominated by (equal share vectors are neither).
 */
export function rankServers<T extends { server: string } & ActionabilityCounts>(items: readonly T[], view: View) {
  const sorted = [...items].sort(
    (a, b) => bitsPerFailure(b[view]) - bitsPerFailure(a[view]) || (a.server < b.server ? -1 : 1),
  );
  return sorted.map((item): Ranked<T> => {
    const strictly = (x: T, y: T) => shareDominates(x[view], y[view]) && !shareDominates(y[view], x[view]);
    return {
      item,
      dominates: sorted.filter((other) => strictly(item, other)).map((other) => other.server),
      dominatedBy: sorted.filter((other) => strictly(other, item)).map((other) => other.server),
    };
  });
}

/** Pairs of distinct profiles of which neither dominates the other (the paper's "incomparable pairs"). */
export function incomparablePairs(profiles: readonly number[]): number {
  const distinct = [...new Set(profiles)];
  let pairs = 0;
  for (let i = 0; i < distinct.length; i++) {
    for (let j = i + 1; j < distinct.length; j++) {
      const [a, b] = [distinct[i] ?? 0, distinct[j] ?? 0];
      if (!dominates(a, b) && !dominates(b, a)) pairs++;
    }
  }
  return pairs;
}

/** Counted failures of one server with one packed pair of profiles: what the store and `lens report` tally. */
export interface ServerProfileCount extends PackedCount {
  server: string;
}

export interface ServerActionability extends ActionabilityCounts {
  server: string;
  /** Bits earned per failure on average, per view: what the servers are ranked by. */
  bitsPerFailure: Record<View, number>;
  /** Per view, the servers this one strictly dominates, and those that strictly dominate it. */
  dominates: Record<View, string[]>;
  dominatedBy: Record<View, string[]>;
}

export interface ActionabilityAnswer extends ActionabilityCounts {
  /** Ranked by bits per failure in the control view, then with transport, then by name. */
  servers: ServerActionability[];
}

/** The fleet's counts and each server's, ranked, with dominance: the one reading of the numbers (API, report, UI). */
export function actionabilityAnswer(rows: readonly ServerProfileCount[]): ActionabilityAnswer {
  const perServer = new Map<string, PackedCount[]>();
  for (const row of rows) {
    const list = perServer.get(row.server) ?? [];
    list.push(row);
    perServer.set(row.server, list);
  }
  const items = [...perServer].map(([server, counts]) => ({ server, ...countViews(counts) }));
  const ranked = Object.fromEntries(VIEWS.map((view) => [view, rankServers(items, view)])) as Record<
    View,
    Ranked<(typeof items)[number]>[]
  >;
  const perView = <T>(pick: (view: View) => T) =>
    Object.fromEntries(VIEWS.map((view) => [view, pick(view)])) as Record<View, T>;
  const servers = ranked.control.map(({ item }): ServerActionability => {
    const relations = (view: View) => ranked[view].find((r) => r.item.server === item.server);
    return {
      ...item,
      bitsPerFailure: perView((view) => bitsPerFailure(item[view])),
      dominates: perView((view) => relations(view)?.dominates ?? []),
      dominatedBy: perView((view) => relations(view)?.dominatedBy ?? []),
    };
  });
  return { ...countViews(rows), servers };
}

/** Counted failures per server and packed profile pair, tallied one failure at a time (`lens report`). */
export class ProfileTally {
  private readonly counts = new Map<string, Map<number, number>>();

  add(server: string, packed: number): void {
    let perProfile = this.counts.get(server);
    if (perProfile === undefined) {
      perProfile = new Map();
      this.counts.set(server, perProfile);
    }
    perProfile.set(packed, (perProfile.get(packed) ?? 0) + 1);
  }

  rows(): ServerProfileCount[] {
    return [...this.counts].flatMap(([server, perProfile]) =>
      [...perProfile].map(([packed, failures]) => ({ server, packed, failures })),
    );
  }
}

/** `lens report`'s member: the fleet's views and hidden failures and each server's, keyed by server in ranking order. */
export function actionabilityReport(rows: readonly ServerProfileCount[]) {
  const { control, transport, content, hidden, servers } = actionabilityAnswer(rows);
  return {
    control,
    transport,
    content,
    hidden,
    byServer: nameRecordOf(servers.map(({ server, ...rest }) => [server, rest])),
  };
}
