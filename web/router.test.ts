import { describe, expect, it } from 'vitest';
import { matchRoute, routePath } from './router.ts';
import { applyPatch, linkTo, readGlobal } from './url-state.ts';

describe('matchRoute', () => {
  it('names every screen and decodes names', () => {
    expect(matchRoute('/')).toEqual({ name: 'overview' });
    expect(matchRoute('/servers')).toEqual({ name: 'servers' });
    expect(matchRoute('/servers/release%20notes')).toEqual({ name: 'server', server: 'release notes' });
    expect(matchRoute('/storms/abc')).toEqual({ name: 'storm', id: 'abc' });
    expect(matchRoute('/events/')).toEqual({ name: 'events' });
    expect(matchRoute('/clients')).toEqual({ name: 'clients' });
    expect(matchRoute('/actionability')).toEqual({ name: 'actionability' });
    expect(matchRoute('/ingest')).toEqual({ name: 'ingest' });
    expect(matchRoute('/alerts')).toEqual({ name: 'alerts' });
    expect(matchRoute('/alerts/new')).toEqual({ name: 'alert_rule', id: 'new' });
    expect(matchRoute('/servers/a/b')).toMatchObject({ name: 'not_found' });
    expect(matchRoute('/servers/%E0%A4%A')).toMatchObject({ name: 'not_found' });
  });

  it('builds paths that match back', () => {
    const route = { name: 'server', server: 'a/b?c' } as const;
    expect(matchRoute(routePath(route))).toEqual(route);
    const rule = { name: 'alert_rule', id: 'r 1' } as const;
    expect(matchRoute(routePath(rule))).toEqual(rule);
  });
});

describe('url state', () => {
  it('carries range and refresh to another screen, and nothing else', () => {
    const current = new URLSearchParams('range=6h&refresh=15s&q=doc&bucket=refusal');
    expect(linkTo('/events', current, { server: 'docs' })).toBe('/events?range=6h&refresh=15s&server=docs');
  });

  it('removes members patched to null or empty', () => {
    const next = applyPatch(new URLSearchParams('a=1&b=2'), { a: null, b: '', c: 3 });
    expect(next.toString()).toBe('c=3');
  });

  it('ignores an unknown refresh interval', () => {
    expect(readGlobal(new URLSearchParams('refresh=1s')).refresh).toBe('off');
    expect(readGlobal(new URLSearchParams('refresh=60s')).refresh).toBe('60s');
  });
});
