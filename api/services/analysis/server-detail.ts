import { codeCounts, methodFailures } from '../../../db/counters/codes.ts';
import { askedBy } from '../../../db/queries/input-requests.ts';
import { sourceCounts } from '../../../db/queries/sources.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { SOURCE_SAMPLE, sourceLabel, sourceNote } from '../../../shared/source-formats.ts';
import { readServerConfig } from '../server-config.ts';
import { serverSummary } from '../summary.ts';
import { serverEras } from './eras.ts';
import { identitiesIn } from './identity-views.ts';
import type { Window } from './load.ts';
import { contextGapIn, stormsIn, timeseriesIn } from './traffic.ts';

/** The newest storms the server page lists; it says how many more the range holds. */
const SHOWN_STORMS = 200;

/** Everything the server drill-down shows, for one window; null for a server nobody has seen or configured. */
export async function serverDetail(db: SqlRunner, scope: Window & { server: string }, now: number) {
  const config = await readServerConfig(db, scope.server);
  if (config === null) return null;
  const [{ summary, unnamed }, codes, methods, series, storms, identities, contextGap, asked, eras, sources] =
    await Promise.all([
      serverSummary(db, scope),
      codeCounts(db, scope),
      methodFailures(db, scope),
      timeseriesIn(db, scope),
      stormsIn(db, scope, { order: 'newest', limit: SHOWN_STORMS, now }),
      identitiesIn(db, scope, 10),
      contextGapIn(db, scope),
      askedBy(db, scope),
      serverEras(db, scope, scope.server),
      sourceCounts(db, scope),
    ]);
  const sourcesRead = sources.reduce((sum, row) => sum + row.records, 0);
  return {
    server: scope.server,
    range: { from: scope.from, to: scope.to },
    counts: summary.overall,
    clients: summary.clients,
    /** The server's own conduct (DOMAIN.md section 6): avoidable requests it sent to clients, e.g. re-sent sampling. */
    // What no named client sent: its own requests (and proxy lines without a client, never avoidable).
    sentByServer: { avoidable: unnamed.avoidable, inRounds: inRoundsOf(asked) },
    codes,
    /** Its counted failures per JSON-RPC method, most first: which of its calls fail. */
    failuresByMethod: methods,
    /** The protocol eras it answered in, and the MRTR input requests it made (DOMAIN.md section 10). */
    eras,
    /**
     * Where its records came from (issue 37): per log format, its records (server events included), how many carry
     * a frame, and what the format cannot show of an outcome. `records`: all the records read, every format's;
     * `sampled`: they are the newest SOURCE_SAMPLE only, and the panel shows each format's share of them.
     */
    sources: {
      formats: sources.map((row) => ({ ...row, label: sourceLabel(row.format), note: sourceNote(row.format) })),
      records: sourcesRead,
      sampled: sourcesRead >= SOURCE_SAMPLE,
    },
    series,
    storms: storms.storms,
    stormsTotal: storms.total,
    stormsComplete: storms.complete,
    identities: identities.identities,
    identitiesExact: identities.exact,
    contextGap: contextGap[0] ?? null,
    discovery: config.discovery,
    discoverySource: config.discoverySource,
    overrides: config.overrides,
  };
}

/**
 * What the server asked of its clients inside MCP 2026-07-28 rounds (DOMAIN.md section 10), from the kept events'
 * input requests: how many, how many of them it had asked before in the window (the same identity again), and per
 * method.
 */
function inRoundsOf(asked: readonly { method: string; requests: number; identities: number }[]) {
  return {
    requests: asked.reduce((sum, row) => sum + row.requests, 0),
    again: asked.reduce((sum, row) => sum + row.requests - row.identities, 0),
    byMethod: Object.fromEntries(asked.map((row) => [row.method, row.requests])),
  };
}
