import { type RoundRow, roundsAround } from '../../../db/queries/call-rounds.ts';
import type { EventHints } from '../../../db/queries/cold-reads.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { type EventView, eventById } from '../events.ts';

/**
 * Rounds of one MRTR call follow each other within this (DOMAIN.md section 10): a client sends the answers to an
 * input request as soon as it has them, in seconds; a continuation further from the round before it is not taken
 * as that call's.
 */
export const ROUND_GAP_MS = 60_000;
/** Rounds read on either side of an event: a call asks for input a few times at most. */
const MAX_ROUNDS = 20;

/** One round of a call, as the event view links it. */
export interface CallRound {
  id: string;
  ts: string;
  bucket: string;
  kind: string;
  /** It carries the answers to the round before it. */
  continuation: boolean;
}

/** The MRTR call an event is a round of: every round in the log, in order, and which one the event is. */
export interface CallRounds {
  rounds: CallRound[];
  /** 1 for the call's first round. */
  round: number;
  /** False when the log holds no first round: the call's first continuation follows none of its sends. */
  firstInLog: boolean;
}

/** An event with the MRTR call it is a round of (null for one that is no round of a call that asked for input). */
export type EventWithCall = EventView & { call: CallRounds | null };

/** One stored event as the event view shows it, with its call's rounds found at read time (not_found: eventById). */
export async function eventWithCall(db: SqlRunner, id: string, hints: EventHints = {}): Promise<EventWithCall> {
  const event = await eventById(db, id, hints);
  return { ...event, call: await callOf(db, event) };
}

async function callOf(db: SqlRunner, event: EventView): Promise<CallRounds | null> {
  // A call's rounds are a client's records of its requests (a proxy line has no identity), counted once.
  if (event.identity === null || event.client === null || !event.counted) return null;
  const self: RoundRow = {
    eventId: event.id,
    seq: event.seq,
    ts: Date.parse(event.ts),
    bucket: event.bucket,
    kind: event.kind,
    continuation: event.continuation ? 1 : 0,
  };
  const anchor = { ...self, server: event.server, client: event.client, identity: event.identity };
  const { before, after } = await roundsAround(db, anchor, MAX_ROUNDS * ROUND_GAP_MS, MAX_ROUNDS);
  return callAround(self, before, after);
}

/**
 * The call `self` is a round of, from the records of its identity before it (newest first) and after it (oldest
 * first): a call starts with a send that is no continuation and goes on with each continuation that follows within
 * ROUND_GAP_MS of the round before. Null when `self` neither asked for input (pending), nor answers an input
 * request, nor was answered by a continuation: no MRTR round.
 */
export function callAround(self: RoundRow, before: readonly RoundRow[], after: readonly RoundRow[]): CallRounds | null {
  const earlier: RoundRow[] = [];
  let first = self;
  for (const row of before) {
    if (first.continuation === 0 || first.ts - row.ts > ROUND_GAP_MS) break;
    earlier.unshift(row);
    first = row;
  }
  const later: RoundRow[] = [];
  let last = self;
  for (const row of after) {
    if (row.continuation === 0 || row.ts - last.ts > ROUND_GAP_MS) break;
    later.push(row);
    last = row;
  }
  const rounds = [...earlier, self, ...later];
  if (rounds.length === 1 && self.bucket !== 'pending' && self.continuation === 0) return null;
  return {
    rounds: rounds.map((row) => ({
      id: row.eventId,
      ts: new Date(row.ts).toISOString(),
      bucket: row.bucket,
      kind: row.kind,
      continuation: row.continuation === 1,
    })),
    round: earlier.length + 1,
    firstInLog: first.continuation === 0,
  };
}
