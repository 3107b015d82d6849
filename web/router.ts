import { useMemo, useSyncExternalStore } from 'react';

/**
 * A tiny router on the History API. Every screen is a path; time range, filters and selection are query members,
 * so any view can be shared as a link and survives a reload. The server answers every non-API path with the app.
 */
export type Route =
  | { name: 'overview' }
  | { name: 'servers' }
  | { name: 'server'; server: string }
  | { name: 'storm'; id: string }
  | { name: 'events' }
  | { name: 'clients' }
  | { name: 'actionability' }
  | { name: 'ingest' }
  | { name: 'alerts' }
  /** `id` is 'new' for a rule not yet saved. */
  | { name: 'alert_rule'; id: string }
  | { name: 'not_found'; path: string };

function segment(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

export function matchRoute(pathname: string): Route {
  const parts = pathname.split('/').filter((part) => part !== '');
  const [first, second, ...rest] = parts;
  const named = second === undefined ? null : segment(second);
  if (first === undefined) return { name: 'overview' };
  if (rest.length === 0 && second === undefined) {
    if (first === 'servers') return { name: 'servers' };
    if (first === 'events') return { name: 'events' };
    if (first === 'clients') return { name: 'clients' };
    if (first === 'actionability') return { name: 'actionability' };
    if (first === 'ingest') return { name: 'ingest' };
    if (first === 'alerts') return { name: 'alerts' };
  }
  if (rest.length === 0 && named !== null && named !== '') {
    if (first === 'servers') return { name: 'server', server: named };
    if (first === 'storms') return { name: 'storm', id: named };
    if (first === 'alerts') return { name: 'alert_rule', id: named };
  }
  return { name: 'not_found', path: pathname };
}

export function routePath(route: Exclude<Route, { name: 'not_found' }>): string {
  switch (route.name) {
    case 'overview':
      return '/';
    case 'server':
      return `/servers/${encodeURIComponent(route.server)}`;
    case 'storm':
      return `/storms/${encodeURIComponent(route.id)}`;
    case 'alert_rule':
      return `/alerts/${encodeURIComponent(route.id)}`;
    default:
      return `/${route.name}`;
  }
}

const listeners = new Set<() => void>();

/** Moves so far, by link or by the browser's back and forward: a screen scrolls to its anchor once per move. */
let moves = 0;
let countingPops = false;

/** Which move the current address came from. */
export function currentMove(): number {
  return moves;
}

function subscribe(listener: () => void): () => void {
  if (!countingPops) {
    countingPops = true;
    window.addEventListener('popstate', () => {
      moves++;
    });
  }
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

function snapshot(): string {
  return window.location.pathname + window.location.search;
}

/** Moves to `href` (same origin). A new screen starts at the top; a filter change on one screen keeps the scroll. */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  const before = window.location.pathname;
  if (href === snapshot()) return;
  if (options.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  moves++;
  for (const listener of listeners) listener();
  if (window.location.pathname !== before) window.scrollTo(0, 0);
}

export interface Location {
  route: Route;
  pathname: string;
  params: URLSearchParams;
}

export function useLocation(): Location {
  const current = useSyncExternalStore(subscribe, snapshot);
  return useMemo(() => {
    const url = new URL(current, 'http://local');
    return { route: matchRoute(url.pathname), pathname: url.pathname, params: url.searchParams };
  }, [current]);
}
