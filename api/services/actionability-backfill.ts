import { ACTIONABILITY_COUNTS } from '../../db/counters/families.ts';
import { FamilyChanges } from '../../db/counters/family.ts';
import { profilePage, writeProfiles } from '../../db/queries/actionability.ts';
import type { Store } from '../../db/runner.ts';
import { storedProfile } from '../../shared/actionability/index.ts';
import type { Bucket } from '../../shared/classify/types.ts';
import { validateEvent } from '../../shared/event.ts';
import { backfillOnce } from './paged-backfill.ts';

/**
 * Reads the profiles of the events stored before this release from their lines (SQL cannot inflate a stored block),
 * stores each one that changed (a failure stored before migration actionability had none; the content view and the
 * hidden failures came with migration content_view), and moves the folded ones in the actionability counts; one still
 * queued is counted by its fold. Once per store, a page per transaction, at start before the first fold
 * (api/server.ts). Answers how many events got a new profile. Version 2 of its settings adds the content view and the
 * hidden failures: a success's line is read too (the migrations actionability and content_view set it done for a
 * store with no events).
 */
export function backfillActionability(store: Store): Promise<number> {
  return backfillOnce(
    store,
    { done: 'actionability_v2', progress: 'actionability_v2_after' },
    (afterSeq) => profilePage(store, afterSeq, PAGE),
    async (tx, page) => {
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
      return profiles.length;
    },
  );
}

const PAGE = 2000;
