import { type EraCountRow, eraCounts } from '../../../db/counters/eras.ts';
import type { RangeFilter } from '../../../db/counters/rollups.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import type { Era } from '../../../shared/era.ts';

/**
 * The protocol eras of one server's or one client's requests over a window (DOMAIN.md section 10), and MCP
 * 2026-07-28's input requests among them.
 */
export interface EraMix {
  /** Requests per era; `none` where the request does not tell (A2A, a `/.well-known/` read, a proxy line). */
  requests: Record<Era | 'none', number>;
  /** 2026-era probes answered as a 2025-only server answers them (kind `era_legacy`). */
  legacyProbes: number;
  inputRequests: {
    /** Rounds answered `input_required` (bucket `pending`). */
    pending: number;
    /** Rounds that carry the answers to an input request. */
    continuations: number;
    /** Calls that asked for input: their first round answered `input_required`. */
    calls: number;
    /** The rounds of those calls. */
    rounds: number;
    /** Round trips per call that asked: rounds / calls; null without such a call. */
    roundsPerCall: number | null;
  };
  /**
   * The eras it spoke: a client, those it sent requests in; a server, those it answered in (a 2026 probe it answered
   * as a 2025-only server does is no 2026 answer). `['2025']` is a client that still speaks only 2025, or a server
   * that answers only 2025.
   */
  speaks: Era[];
}

type Window = Pick<RangeFilter, 'from' | 'to' | 'eventsFrom'>;

/** One server's eras over the window, from the counts kept per server. */
export async function serverEras(db: SqlRunner, window: Window, server: string): Promise<EraMix> {
  return eraMix(await eraCounts(db, window, 'server', server), 'server');
}

/** Each client's eras over the window, by client name, from the counts kept per client. */
export async function clientEras(db: SqlRunner, window: Window, client?: string): Promise<Map<string, EraMix>> {
  const byClient = new Map<string, EraCountRow[]>();
  for (const row of await eraCounts(db, window, 'client', client)) {
    // '' holds the requests servers sent to clients: no client's own.
    if (row.name === '') continue;
    byClient.set(row.name, [...(byClient.get(row.name) ?? []), row]);
  }
  return new Map([...byClient].map(([name, rows]) => [name, eraMix(rows, 'client')]));
}

/** The counts of one name's rows (one per era) as its mix. */
export function eraMix(rows: readonly EraCountRow[], side: 'server' | 'client'): EraMix {
  const requests = { '2025': 0, '2026': 0, none: 0 };
  const sums = { legacy: 0, pending: 0, continuations: 0, calls: 0, rounds: 0 };
  let legacy2026 = 0;
  for (const row of rows) {
    requests[row.era ?? 'none'] += row.requests;
    for (const column of Object.keys(sums) as (keyof typeof sums)[]) sums[column] += row[column];
    if (row.era === '2026') legacy2026 += row.legacy;
  }
  const spoken = (era: Era) => requests[era] - (side === 'server' && era === '2026' ? legacy2026 : 0) > 0;
  return {
    requests,
    legacyProbes: sums.legacy,
    inputRequests: {
      pending: sums.pending,
      continuations: sums.continuations,
      calls: sums.calls,
      rounds: sums.rounds,
      roundsPerCall: sums.calls === 0 ? null : sums.rounds / sums.calls,
    },
    speaks: (['2025', '2026'] as const).filter(spoken),
  };
}
