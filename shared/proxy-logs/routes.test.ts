import { describe, expect, it } from 'vitest';
import type { DiscoveryDocument } from '../discovery.ts';
import { parseProxyMap, serverOfRoutes } from './routes.ts';

const declares = (...paths: string[]): DiscoveryDocument => ({
  format: 'plain',
  endpoints: paths.map((path) => ({ method: 'POST', path })),
  methods: [],
});

describe('parseProxyMap', () => {
  it('reads {"routes": [...]} and the bare array', () => {
    const routes = [
      { host: 'Desk.Example', server: 'release-desk' },
      { pathPrefix: '/a2a/', server: 'relay', protocol: 'a2a' },
    ];
    expect(parseProxyMap({ routes })).toEqual({
      ok: true,
      routes: [
        { host: 'desk.example', server: 'release-desk' },
        { pathPrefix: '/a2a/', server: 'relay', protocol: 'a2a' },
      ],
    });
    expect(parseProxyMap(routes).ok).toBe(true);
  });

  it('names the first entry that is no route', () => {
    for (const bad of [
      { server: 'x' },
      { host: '', server: 'x' },
      { host: 'h' },
      { host: 'h', server: 'x', protocol: 'grpc' },
    ]) {
      expect(parseProxyMap({ routes: [{ host: 'ok', server: 'ok' }, bad] })).toEqual({
        ok: false,
        message: expect.stringContaining('routes[1] is no route'),
      });
    }
    expect(parseProxyMap({ servers: {} })).toMatchObject({ ok: false });
  });
});

describe('serverOfRoutes', () => {
  it('matches a host with or without its port, and a route naming a port only on that port', () => {
    const serverOf = serverOfRoutes(
      [
        { host: 'desk.example', server: 'desk' },
        { host: 'desk.example:9000', server: 'desk-admin' },
      ],
      [],
    );
    expect(serverOf('DESK.example:8443', '/mcp')).toBe('desk');
    expect(serverOf('desk.example:9000', '/mcp')).toBe('desk-admin');
    expect(serverOf('desk.example.evil', '/mcp')).toBeUndefined();
  });

  it('falls back to the one server declaring the path, never guessing between two', () => {
    const serverOf = serverOfRoutes(
      [],
      [
        { server: 'release-desk', document: declares('/mcp', '/shared') },
        { server: 'docs', document: declares('/docs/mcp', '/shared') },
      ],
    );
    expect(serverOf(undefined, '/docs/mcp?session=1')).toBe('docs');
    expect(serverOf(undefined, '/mcp')).toBe('release-desk');
    expect(serverOf(undefined, '/shared')).toBeUndefined();
    expect(serverOf(undefined, '/nowhere')).toBeUndefined();
    expect(serverOf(undefined, undefined)).toBeUndefined();
  });

  it('answers the protocol a route names with its server', () => {
    const serverOf = serverOfRoutes([{ pathPrefix: '/a2a/', server: 'relay', protocol: 'a2a' }], []);
    expect(serverOf(undefined, '/a2a/jsonrpc')).toEqual({ pathPrefix: '/a2a/', server: 'relay', protocol: 'a2a' });
  });
});
