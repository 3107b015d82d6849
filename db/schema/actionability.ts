import { bigint, defineTable, integer, primaryKey, SQLITE_WITHOUT_ROWID, text } from './tables.ts';

/**
 * Counted failures per server, time bucket and set of actionability profiles (events.act_profile: the control,
 * transport and content views and the hidden flags in one integer), kept at ingest (declared in db/counters/families.ts): a window's profiles per server read
 * counts, not the window's events and their lines. One row per pair, not per view: one change per failure, and both
 * views follow from it. An hour level for the middle of a window, a minute level for its edges (ADR 13).
 */
function actionabilityColumns() {
  return {
    server: text('server').notNull(),
    /** Epoch ms of the bucket's start, aligned to the epoch. */
    start: bigint('start').notNull(),
    /** shared/actionability/profile.ts packViews: the three views and the hidden flags, 0..2^20-1. */
    profile: integer('profile').notNull(),
    failures: integer('failures').notNull(),
  };
}

export const actionabilityMinute = defineTable(
  'actionability_minute',
  actionabilityColumns(),
  (t) => [primaryKey(t.server, t.start, t.profile)],
  SQLITE_WITHOUT_ROWID,
);

export const actionabilityHour = defineTable(
  'actionability_hour',
  actionabilityColumns(),
  (t) => [primaryKey(t.server, t.start, t.profile)],
  SQLITE_WITHOUT_ROWID,
);
