import { type LatestSendRow, sendsAt, sendTimes } from '../../../db/counters/identities.ts';
import type { EventFilter } from '../../../db/queries/events.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import {
  byAlarm,
  type SendTimeline,
  timelineAlarm,
  timelineSeries,
  timelineStats,
} from '../../../shared/analysis/identities.ts';
import { stepFor } from '../../../shared/analysis/time-buckets.ts';
import type { Bucket } from '../../../shared/classify/types.ts';
import { alarmCandidates } from './identity-alarms.ts';
import { rankIdentities } from './identity-ranking.ts';
import type { Window } from './load.ts';

type Scope = Window & Pick<EventFilter, 'server' | 'client'>;

/**
 * The most re-presented identities of the window, each as GET /identities/:identity shows it (one read for all), and
 * whether the ranking is certain (ADR 7).
 */
export async function identitiesIn(db: SqlRunner, scope: Scope, limit: number) {
  const { identities, exact } = await rankIdentities(db, scope, limit);
  return { identities: await identityViews(db, scope, identities), exact };
}

/**
 * The `limit` identities most over the re-presentation alarm in the window, the densest first, and how many are over
 * it in all; never missing one.
 */
export async function identitiesOverAlarm(db: SqlRunner, scope: Scope, limit: number) {
  const views = await identityViews(db, scope, await alarmCandidates(db, scope));
  // An identity's sends have one densest window: its alarm, if any.
  const alarmed = views.flatMap((view) => (view.alarms[0] === undefined ? [] : [{ view, alarm: view.alarms[0] }]));
  const identities = alarmed
    .sort((a, b) => byAlarm(a.alarm, b.alarm))
    .slice(0, limit)
    .map(({ view }) => view);
  return { identities, exact: true, total: alarmed.length };
}

export async function identityIn(db: SqlRunner, scope: Scope, identity: string) {
  const [view] = await identityViews(db, scope, [identity]);
  return view ?? null;
}

/** Each identity's view in `identities` order; identities not sent in the window are left out. */
async function identityViews(db: SqlRunner, scope: Scope, identities: readonly string[]) {
  const step = stepFor(scope.to - scope.from);
  return (await timelines(db, scope, identities)).flatMap((timeline) => {
    const stats = timelineStats(timeline);
    if (stats === null) return [];
    const alarm = timelineAlarm(timeline);
    return [
      {
        ...stats,
        alarms: alarm === null ? [] : [alarm],
        series: timelineSeries(timeline.times, scope.from, scope.to, step),
        step,
      },
    ];
  });
}

/**
 * The identities' send times from the identity index, and the row of each one's latest send: a loop sent 4 times a
 * second is 345k sends a day, and its view reads 345k index entries and one row.
 */
async function timelines(db: SqlRunner, scope: Scope, identities: readonly string[]): Promise<SendTimeline[]> {
  const times = await sendTimes(db, identities, scope);
  const latestTimes = [...times].map(([identity, list]) => [identity, list.at(-1) as number] as const);
  const latest = new Map<string, LatestSendRow>();
  for (const row of await sendsAt(db, latestTimes, scope.client)) {
    const held = latest.get(row.identity);
    // Sends at one time are ordered by id (stored events have no arrival sequence between them).
    if (held === undefined || row.eventId > held.eventId) latest.set(row.identity, row);
  }
  return identities.flatMap((identity) => {
    const row = latest.get(identity);
    const list = times.get(identity);
    if (row === undefined || list === undefined) return [];
    const { server, ts, eventId, bucket, kind, rule, method } = row;
    return [
      {
        identity,
        server,
        times: list,
        last: { ts, seq: 0, id: eventId, bucket: bucket as Bucket, kind, rule, method },
      },
    ];
  });
}
