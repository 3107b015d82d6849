import { ActionabilityChanges } from '../../db/counters/actionability.ts';
import { unprofiledPage, writeProfiles } from '../../db/queries/actionability.ts';
import { getSetting, putSetting, setSettingOnce } from '../../db/queries/settings.ts';
import type { Store } from '../../db/runner.ts';
import { storedProfile } from '../../shared/actionability/index.ts';
import { validateEvent } from '../../shared/event.ts';

/**
 * Set once every stored failure has its profile (migration actionability sets it for a store with no events);
 * `…_after` holds the last page done, in the same transaction as the page, so a crash resumes after it.
 */
const DONE_KEY = 'actionability_v1';
const PROGRESS_KEY = 'actionability_v1_after';
const PAGE = 2000;

/**
 * Reads the profiles of the failures stored before migration actionability from their lines (SQL cannot inflate a
 * stored block), and counts the folded ones into the actionability counts; one still queued is counted by its fold.
 * Once per store, a page per transaction, at start before the first fold (api/server.ts). Answers how many events
 * got a profile.
 */
export async function backfillActionability(store: Store): Promise<number> {
  if ((await getSetting(store, DONE_KEY)) !== null) return 0;
  let done = 0;
  let afterSeq = Number((await getSetting(store, PROGRESS_KEY)) ?? 0);
  for (;;) {
    const page = await unprofiledPage(store, afterSeq, PAGE);
    const last = page.at(-1);
    if (last === undefined) break;
    await store.transaction(async (tx) => {
      const changes = new ActionabilityChanges();
      const profiles: [number, number][] = [];
      for (const row of page) {
        const parsed = validateEvent(JSON.parse(row.body));
        // Stored rows were valid when accepted; one that cannot be read again keeps no profile.
        const actProfile = parsed.ok ? storedProfile(parsed.event) : null;
        if (actProfile === null) continue;
        profiles.push([row.seq, actProfile]);
        if (row.counted === 1 && row.queued === 0) changes.count({ ...row, actProfile }, 1);
      }
      await writeProfiles(tx, profiles);
      await changes.write(tx);
      await putSetting(tx, PROGRESS_KEY, String(last.seq));
    });
    done += page.length;
    afterSeq = last.seq;
  }
  await setSettingOnce(store, DONE_KEY, new Date().toISOString());
  return done;
}
