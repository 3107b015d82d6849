import { CountChanges } from '../../db/counters/changes.ts';
import { storedKey } from '../../db/event-row.ts';
import { linesOf } from '../../db/queries/bodies.ts';
import {
  deleteInputRequests,
  foldedRoundsPage,
  type InputRequestRow,
  insertInputRequests,
  type RoundKey,
} from '../../db/queries/input-requests.ts';
import type { SqlRunner, Store } from '../../db/runner.ts';
import { validateEvent } from '../../shared/event.ts';
import { inputRequestsOf } from '../../shared/mrtr.ts';
import { backfillOnce } from './paged-backfill.ts';

/** A counted round as a fold or the backfill holds it. */
export interface Round extends RoundKey {
  client: string | null;
  bucket: string;
}

/**
 * MCP 2026-07-28's input requests of counted rounds in and out of the store (DOMAIN.md section 10): each request a
 * server made inside a round's `input_required` answer is a send of its identity, the server its sender, as a 2025
 * server's sampling request is. `rounds` are counted in (their input requests read from their stored lines: the
 * rounds that answered `input_required`, bucket pending, are the only ones that hold any), `shadowed` out (a proxy's
 * record of a round whose client's record now counts). The sends go through `changes`, written with the fold's
 * other counts.
 */
export async function foldInputRequests(
  db: SqlRunner,
  rounds: readonly Round[],
  shadowed: readonly Round[],
  changes: CountChanges,
): Promise<number> {
  const asking = rounds.filter((round) => round.bucket === 'pending');
  const stored = await insertInputRequests(db, await inputRequestsIn(db, asking));
  for (const row of stored) changes.addSend(row, 1);
  const removed = await deleteInputRequests(
    db,
    shadowed.filter((round) => round.bucket === 'pending'),
  );
  for (const row of removed) changes.addSend(row, -1);
  return stored.length;
}

/** The input requests the rounds' answers made, from their stored lines; those with no identity are none. */
async function inputRequestsIn(db: SqlRunner, rounds: readonly Round[]): Promise<InputRequestRow[]> {
  if (rounds.length === 0) return [];
  const lines = await linesOf(db, rounds);
  return rounds.flatMap((round) => {
    const line = lines.get(storedKey(round));
    const parsed = line === undefined ? null : validateEvent(JSON.parse(line));
    if (!parsed?.ok) return [];
    return inputRequestsOf(round.server, parsed.event).flatMap((asked) =>
      asked.identity === null
        ? []
        : [
            {
              eventId: round.eventId,
              ts: round.ts,
              server: round.server,
              inputKey: asked.key,
              client: round.client,
              method: asked.method,
              identity: asked.identity,
            },
          ],
    );
  });
}

/**
 * Reads the input requests of the rounds folded before migration input_requests from their lines, once per store, a
 * page per transaction, at start (api/server.ts). Storing is idempotent, so a round a fold already took is not counted
 * twice. Answers how many input requests it stored. `input_requests_v1` is set once done (the migration sets it for a
 * store without such rounds).
 */
export function backfillInputRequests(store: Store): Promise<number> {
  return backfillOnce(
    store,
    { done: 'input_requests_v1', progress: 'input_requests_v1_after' },
    (afterSeq) => foldedRoundsPage(store, afterSeq, PAGE),
    async (tx, page) => {
      const changes = new CountChanges();
      const count = await foldInputRequests(tx, page, [], changes);
      await changes.write(tx);
      return count;
    },
  );
}

const PAGE = 2000;
