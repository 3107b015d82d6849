import { sql } from 'drizzle-orm';
import { bigint, bytes, defineTable, index, integer, primaryKey, SQLITE_WITHOUT_ROWID, text } from './tables.ts';

/**
 * The audit of the decision store (DOMAIN.md section 5, shared/analysis/denials.ts), kept by the fold
 * (db/queries/denial-audit.ts): every identity with a counted refusal is audited anew from its events whenever one of
 * them changes (from its checkpoint when the change is after it), and its results replace the stored ones. Refused
 * identities are few, so the audit reads few rows.
 */

/** The identities (server, digest) that have a counted refusal: the ones whose changes call for an audit. */
export const denialIdentity = defineTable(
  'denial_identity',
  {
    server: text('server').notNull(),
    identity: bytes('identity').notNull(),
    /** 1 while the identity waits for its first audit (the migration that built this table queued every one). */
    pending: integer('pending').notNull().default(0),
    /**
     * The audit's checkpoint (db/queries/denial-audit.ts): an hour's start, before which the identity's stored audit rows
     * are final, and the decisions standing then (JSON, shared/analysis/denials.ts `serialiseDecisions`). A change
     * to events at or after it resumes the audit from there. Null: none yet (the next audit reads every event).
     */
    checkpointAt: bigint('checkpoint_at'),
    checkpoint: text('checkpoint'),
    /**
     * Where a full audit starts: the events horizon of the retention pass that deleted the events before it
     * (api/services/retention.ts), and the decisions standing there. Null: from the first event.
     */
    baseAt: bigint('base_at'),
    base: text('base'),
  },
  (t) => [
    primaryKey(t.server, t.identity),
    index('denial_identity_pending_idx').on(t.pending).where(sql`${t.pending} = 1`),
  ],
  SQLITE_WITHOUT_ROWID,
);

/** Denials that did not hold: a refusal, and the later answer that differed while it stood. */
export const denialBreach = defineTable(
  'denial_breach',
  {
    server: text('server').notNull(),
    identity: bytes('identity').notNull(),
    /** The later answer's event id and time (an event is its id, time and server): it overturns one decision. */
    answerId: text('answer_id').notNull(),
    answerTs: bigint('answer_ts').notNull(),
    client: text('client').notNull(),
    rpcMethod: text('rpc_method'),
    /** 1 when the answer came on another session than the refusal. */
    newSession: integer('new_session').notNull(),
    /** JSON shared/analysis/denials.ts DenialEventRef of the refusal and of the answer. */
    refusal: text('refusal').notNull(),
    answer: text('answer').notNull(),
  },
  (t) => [
    // The time too: logs reuse ids, and the store keeps two events of one id at different times apart.
    primaryKey(t.server, t.identity, t.answerTs, t.answerId),
    // With the server and client: a window's edge hours are counted from this index alone (denial_hour the rest).
    index('denial_breach_ts_idx').on(t.answerTs, t.server, t.client),
  ],
);

/** Re-presented requests that got their standing refusal again (replayed), per identity, client and hour. */
export const denialReplayHour = defineTable(
  'denial_replay_hour',
  {
    server: text('server').notNull(),
    identity: bytes('identity').notNull(),
    client: text('client').notNull(),
    start: bigint('start').notNull(),
    replayed: integer('replayed').notNull(),
  },
  (t) => [primaryKey(t.server, t.identity, t.client, t.start), index('denial_replay_hour_start_idx').on(t.start)],
  SQLITE_WITHOUT_ROWID,
);

/**
 * The audit's counts per hour: the denials that did not hold (by their answer's hour) and the replayed refusals. Kept
 * by the audit beside the rows it counts (db/counters/denial-hours.ts), per server and client for a window narrowed
 * to either, and per client and per server alone for the fleet's: a day of the fleet reads its clients' and servers'
 * hours (some rows per hour each), not every pair's (a thousand an hour in the bench) nor the day's breaches.
 */
export const denialHour = defineTable(
  'denial_hour',
  {
    /** Epoch ms of the hour's start. */
    start: bigint('start').notNull(),
    server: text('server').notNull(),
    client: text('client').notNull(),
    breaches: integer('breaches').notNull(),
    replayed: integer('replayed').notNull(),
  },
  // The hour first: a window reads a range of it, narrowed to a server or client within each hour.
  (t) => [primaryKey(t.start, t.server, t.client)],
  SQLITE_WITHOUT_ROWID,
);

export const denialClientHour = defineTable(
  'denial_client_hour',
  {
    start: bigint('start').notNull(),
    client: text('client').notNull(),
    breaches: integer('breaches').notNull(),
    replayed: integer('replayed').notNull(),
  },
  (t) => [primaryKey(t.start, t.client)],
  SQLITE_WITHOUT_ROWID,
);

export const denialServerHour = defineTable(
  'denial_server_hour',
  {
    start: bigint('start').notNull(),
    server: text('server').notNull(),
    breaches: integer('breaches').notNull(),
    replayed: integer('replayed').notNull(),
  },
  (t) => [primaryKey(t.start, t.server)],
  SQLITE_WITHOUT_ROWID,
);
