import { denialCountsIn } from '../../../db/counters/denial-hours.ts';
import { storedKey } from '../../../db/event-row.ts';
import { linesOf } from '../../../db/queries/bodies.ts';
import { type BreachRow, breachesIn, type DenialScope, probedIn } from '../../../db/queries/denials.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import {
  type DenialNotHeld,
  denialSummary,
  isSessionless,
  restartedBetween,
} from '../../../shared/analysis/denials.ts';
import { clientInstanceOf } from '../../../shared/era.ts';
import { validateEvent } from '../../../shared/event.ts';
import { analysisLag } from '../analysis-lag.ts';

/** The latest denials that did not hold listed (the counts are of all of them): a day can hold a hundred thousand. */
export const DENIALS_LISTED = 200;

/**
 * The decision store's audit in a window (DOMAIN.md section 5): the denials that did not hold, their counts per
 * client and per server, and per client how its re-presented refusals were answered: replayed (the same refusal
 * again, the store working) or evaluated afresh (a denial that did not hold). The route's reader; the counts are
 * `denialCountsIn`'s, which the alert metric `denials_not_held` reads too (`lens report` audits its logs offline).
 */
export async function denialsIn(db: SqlRunner, scope: DenialScope) {
  const [items, { counts, replayed }, lag] = await Promise.all([
    breachesIn(db, scope, DENIALS_LISTED).then((rows) => inBetween(db, rows)),
    denialCountsIn(db, scope),
    analysisLag(db),
  ]);
  return {
    from: new Date(scope.from).toISOString(),
    to: new Date(scope.to).toISOString(),
    ...denialSummary(items, replayed, counts),
    analysedThrough: lag.analysedThrough,
    lagMs: lag.lagMs,
  };
}

/**
 * MCP 2026-07-28's "in between" of the listed denials whose refusal was 2026's (DOMAIN.md section 10), null for the
 * others: whether the client re-probed the server (a `server/discover` after the refusal, before the answer) and
 * whether the answer came from another client instance (its `_meta` clientInfo, read from the two stored lines: the
 * store keeps no column of it). A handful of reads for the whole list.
 */
async function inBetween(db: SqlRunner, rows: readonly BreachRow[]): Promise<DenialNotHeld[]> {
  const asked = rows.filter((row) => isSessionless(row.refusal));
  const spans = asked.map((row) => ({
    client: row.client,
    server: row.server,
    after: row.refusal.ts,
    before: row.answer.ts,
  }));
  const keys = asked.flatMap((row) =>
    [row.refusal, row.answer].map((ref) => ({ eventId: ref.id, ts: ref.ts, server: row.server })),
  );
  const [probed, lines] = await Promise.all([probedIn(db, spans), linesOf(db, keys)]);
  const instanceOf = (ref: { id: string; ts: number }, server: string) => {
    const line = lines.get(storedKey({ eventId: ref.id, ts: ref.ts, server }));
    const parsed = line === undefined ? null : validateEvent(JSON.parse(line));
    return parsed?.ok ? clientInstanceOf(parsed.event) : null;
  };
  const places = new Map(asked.map((row, place) => [row, place]));
  return rows.map((row) => {
    const place = places.get(row);
    if (place === undefined) return { ...row, reprobed: null, restarted: null };
    return {
      ...row,
      reprobed: probed.has(place),
      restarted: restartedBetween(instanceOf(row.refusal, row.server), instanceOf(row.answer, row.server)),
    };
  });
}
