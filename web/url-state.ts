import { parseRange, type TimeRange } from './time-range.ts';

/** The members every screen shares; a link to another screen carries them, and nothing else. */
const GLOBAL_KEYS = ['range', 'from', 'to', 'refresh'] as const;

export const REFRESH_CHOICES = ['off', '15s', '60s'] as const;
export type RefreshChoice = (typeof REFRESH_CHOICES)[number];
export const REFRESH_MS: Readonly<Record<RefreshChoice, number | null>> = { off: null, '15s': 15_000, '60s': 60_000 };

export interface GlobalState {
  range: TimeRange;
  refresh: RefreshChoice;
}

export function readGlobal(params: URLSearchParams): GlobalState {
  const refresh = params.get('refresh');
  const known = (REFRESH_CHOICES as readonly (string | null)[]).includes(refresh);
  return { range: parseRange(params), refresh: known ? (refresh as RefreshChoice) : 'off' };
}

export type Patch = Readonly<Record<string, string | number | null | undefined>>;

/** `params` with `patch` applied: null, undefined and '' remove a member. */
export function applyPatch(params: URLSearchParams, patch: Patch): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === undefined || value === '') next.delete(key);
    else next.set(key, String(value));
  }
  return next;
}

export function hrefOf(path: string, params: URLSearchParams): string {
  const search = params.toString();
  return search === '' ? path : `${path}?${search}`;
}

/** A link to `path` that keeps the current range and refresh, plus `extra` (the target screen's own members). */
export function linkTo(path: string, current: URLSearchParams, extra: Patch = {}): string {
  const carried = new URLSearchParams();
  for (const key of GLOBAL_KEYS) {
    const value = current.get(key);
    if (value !== null) carried.set(key, value);
  }
  return hrefOf(path, applyPatch(carried, extra));
}
