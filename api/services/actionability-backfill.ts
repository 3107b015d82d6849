import { ACTIONABILITY_COUNTS } from '../../db/counters/families.ts';
import { FamilyChanges } from '../../db/counters/family.ts';
import { profilePage, writeProfiles } from '../../db/queries/actionability.ts';
import { getSetting, putSetting, setSettingOnce } from '../../db/queries/settings.ts';
import type { Store } from '../../db/runner.ts';
import { storedProfile } from '../../shared/actionability/index.ts';
import type { Bucket } from '../../shared/classify/types.ts';
import { validateEvent } from '../../shared/event.ts';

/**
 * Set once every stored event has the profile this release reads (the migrations actionability and content_view set
 * it for a store with no events); `…_after` holds the last page done, in the same transaction as the page, so a crash
 * resumes after it. Version 2 adds the content view and the hidden failures: a success's line is read too.
 */
const DONE_KEY = 'actionability_v2';
const PROGRESS_KEY = 'actionability_v2_after';
const PAGE = 2000;

/**
 * Reads the profiles of the events stored before this release from their lines (SQL cannot inflate a stored block),
 * stores each one that changed (a failure stored before migration actionability had none; the content view and the
 * hidden failures came with migration content_view), and moves the folded ones in the actionability counts; one still
 * queued is counted by its fold. Once per store, a page per transaction, at start before the first fold
 * (api/server.ts). Answers how many events got a new profile.
 */
export async function backfillActionability(store: Store): Promise<number> {
  if ((await getSetting(store, DONE_KEY)) !== null) return 0;
  let changed = 0;
  let afterSeq = Number((await getSetting(store, PROGRESS_KEY)) ?? 0);
  for (;;) {
    const page = await profilePage(store, afterSeq, PAGE);
    const last = page.at(-1);
    if (last === undefined) break;
    const written = await store.transaction(async (tx) => {
      const changes = new FamilyChanges(ACTIONABILITY_COUNTS, []);
      const profiles: [number, number | null][] = [];
      for (const row of page) {
        const parsed = validateEvent(JSON.parse(row.body));
        // Stored rows were valid when accepted; one that cannot be read again keeps the profile it has.
        if (!parsed.ok) continue;
        const actProfile = storedProfile(parsed.event, row.bucket as Bucket);
        if (actProfile === row.actProfile) continue;
        profiles.push([row.seq, actProfile]);
        if (row.counted === 1 && row.queued === 0) {
          changes.add(row, -1);
          changes.add({ ...row, actProfile }, 1);
        }
      }
      await writeProfiles(tx, profiles);
      await changes.write(tx);
      await putSetting(tx, PROGRESS_KEY, String(last.seq));
      return profiles.length;
    });
    changed += written;
    afterSeq = last.seq;
  }
  await setSettingOnce(store, DONE_KEY, new Date().toISOString());
  return changed;
}
