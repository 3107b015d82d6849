import { codeCounts } from '../../../db/counters/codes.ts';
import { countRows } from '../../../db/counters/rollups.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { readServerConfig } from '../server-config.ts';
import { summarise } from '../summary.ts';
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
  const [summary, codes, series, storms, identities, contextGap, own, eras] = await Promise.all([
    summarise(db, scope),
    codeCounts(db, scope),
    timeseriesIn(db, scope),
    stormsIn(db, scope, { order: 'newest', limit: SHOWN_STORMS, now }),
    identitiesIn(db, scope, 10),
    contextGapIn(db, scope),
    // Counts no named client sent: the server's own requests (and proxy lines without a client, never avoidable).
    countRows(db, { ...scope, client: '' }, null, ['server']),
    serverEras(db, scope, scope.server),
  ]);
  return {
    server: scope.server,
    range: { from: scope.from, to: scope.to },
    counts: summary.overall,
    clients: summary.clients,
    /** The server's own conduct (DOMAIN.md section 6): avoidable requests it sent to clients, e.g. re-sent sampling. */
    sentByServer: { avoidable: own.reduce((sum, row) => sum + row.avoidable, 0) },
    codes,
    /** The protocol eras it answered in, and the MRTR input requests it made (DOMAIN.md section 10). */
    eras,
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
