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
import { getSetting, putSetting, setSettingOnce } from '../../db/queries/settings.ts';
import type { SqlRunner, Store } from '../../db/runner.ts';
import { validateEvent } from '../../shared/event.ts';
import { inputRequestsOf } from '../../shared/mrtr.ts';

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
 * Set once the rounds folded before migration input_requests have their input requests stored and counted (the
 * migration sets it for a store without such rounds); `…_after` holds the last page done, in the page's transaction.
 */
const DONE_KEY = 'input_requests_v1';
const PROGRESS_KEY = 'input_requests_v1_after';
const PAGE = 2000;

/**
 * Reads the input requests of the rounds folded before migration input_requests from their lines, once per store, a
 * page per transaction, at start (api/server.ts). Storing is idempotent, so a round a fold already took is not counted
 * twice. Answers how many input requests it stored.
 */
export async function backfillInputRequests(store: Store): Promise<number> {
  if ((await getSetting(store, DONE_KEY)) !== null) return 0;
  let stored = 0;
  let afterSeq = Number((await getSetting(store, PROGRESS_KEY)) ?? 0);
  for (;;) {
    const page = await foldedRoundsPage(store, afterSeq, PAGE);
    const last = page.at(-1);
    if (last === undefined) break;
    stored += await store.transaction(async (tx) => {
      const changes = new CountChanges();
      const count = await foldInputRequests(tx, page, [], changes);
      await changes.write(tx);
      await putSetting(tx, PROGRESS_KEY, String(last.seq));
      return count;
    });
    afterSeq = last.seq;
  }
  await setSettingOnce(store, DONE_KEY, new Date().toISOString());
  return stored;
}
