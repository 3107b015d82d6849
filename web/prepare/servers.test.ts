import { describe, expect, it } from 'vitest';
import type { ServerRow } from '../queries/servers.ts';
import { readServerTableState, serverTable, topServers } from './servers.ts';

function server(name: string, requests: number, refusal: number, avoidable: number, hasDiscovery = true): ServerRow {
  return {
    server: name,
    hasDiscovery,
    requests,
    avoidable,
    buckets: { ok: requests - refusal, pending: 0, unknown: 0, refusal, transient: 0, throttled: 0, ambiguous: 0 },
  };
}

const rows = [server('docs', 100, 10, 9), server('files', 1000, 900, 899), server('billing', 50, 0, 0, false)];

describe('server table', () => {
  it('defaults to most refusals first', () => {
    const state = readServerTableState(new URLSearchParams());
    expect(serverTable(rows, state).map((r) => r.server)).toEqual(['files', 'docs', 'billing']);
  });

  it('searches by name and sorts by any column, either way', () => {
    const byName = readServerTableState(new URLSearchParams('sort=server&dir=asc&q=S'));
    expect(serverTable(rows, byName).map((r) => r.server)).toEqual(['docs', 'files']);
    const byShare = serverTable(rows, readServerTableState(new URLSearchParams('sort=share&dir=asc')));
    expect(byShare.map((r) => r.server)).toEqual(['billing', 'docs', 'files']);
    expect(byShare[0]?.share).toBe(0);
  });

  it('ignores an unknown sort', () => {
    expect(readServerTableState(new URLSearchParams('sort=__proto__')).sort).toBe('refusal');
  });
});

describe('topServers', () => {
  it('ranks by the chosen number and leaves out servers with none', () => {
    expect(topServers(rows, 'avoidable', 5)).toEqual([
      { server: 'files', value: 899, share: 0.899 },
      { server: 'docs', value: 9, share: 0.09 },
    ]);
    expect(topServers(rows, 'refusal', 1).map((r) => r.server)).toEqual(['files']);
  });
});
