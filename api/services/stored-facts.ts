import { CountChanges } from '../../db/counters/changes.ts';
import { type FactsRow, factsPage, updateFacts } from '../../db/queries/classification.ts';
import { auditTouched } from '../../db/queries/denial-audit.ts';
import { getSetting, putSetting, setSettingOnce } from '../../db/queries/settings.ts';
import type { Store, TxRunner } from '../../db/runner.ts';
import { waitUntilFor } from '../../shared/analysis/from-event.ts';
import type { Bucket } from '../../shared/classify/types.ts';
import { validateEvent } from '../../shared/event.ts';
import { isSentByServer, SERVER_TO_CLIENT_METHODS } from '../../shared/frames.ts';
import { A2A_MESSAGE_METHODS, requestIdentity } from '../../shared/identity.ts';

/**
 * Set once this release's facts hold for every stored event (migration 0025 / pg 0024 sets it for a store with no
 * events); `…_after` holds the last page done, in the same transaction as the page, so a crash resumes after it.
 */
const FACTS_KEY = 'stored_facts_v2';
const PROGRESS_KEY = 'stored_facts_v2_after';
const PAGE = 2000;
const METHODS = { a2aMessages: [...A2A_MESSAGE_METHODS], serverSent: [...SERVER_TO_CLIENT_METHODS] };

/**
 * Files again, from the stored lines, what this release reads differently: A2A message identities without
 * `messageId` (DOMAIN.md section 5), when a refusal or throttle lapses (section 6), and the requests a server sent,
 * whose counts move from the client to the server (section 6, "Whose conduct"). Once per store, a page per
 * transaction, before the gate is replayed from them (the same migration asks for that replay). Answers how many
 * events changed.
 */
export async function rederiveStoredFacts(store: Store): Promise<number> {
  if ((await getSetting(store, FACTS_KEY)) !== null) return 0;
  let changed = 0;
  let afterSeq = Number((await getSetting(store, PROGRESS_KEY)) ?? 0);
  for (;;) {
    const page = await factsPage(store, METHODS, afterSeq, PAGE);
    const last = page.at(-1);
    if (last === undefined) break;
    changed += await store.transaction(async (tx) => {
      const rollups = new CountChanges();
      let n = 0;
      for (const row of page) if (await refile(tx, row, rollups)) n++;
      await rollups.write(tx);
      await auditTouched(tx, rollups.touched);
      await putSetting(tx, PROGRESS_KEY, String(last.seq));
      return n;
    });
    afterSeq = last.seq;
  }
  await setSettingOnce(store, FACTS_KEY, new Date().toISOString());
  return changed;
}

async function refile(tx: TxRunner, row: FactsRow, rollups: CountChanges): Promise<boolean> {
  const parsed = validateEvent(JSON.parse(row.body));
  // Stored rows were valid when accepted; one that cannot be read again keeps its facts.
  if (!parsed.ok) return false;
  const { event } = parsed;
  const identity = requestIdentity(event.server, event.request, event.protocol);
  const waitUntil = waitUntilFor(event, { bucket: row.bucket as Bucket });
  const serverSent = row.counted === 1 && row.client !== null && isSentByServer(row.rpcMethod);
  if (serverSent) {
    // Out as the older release filed it (under the client), in under the sender. The verdicts follow in the replay.
    rollups.add({ ...row, rpcMethod: null }, -1, -row.avoidable, row.gateReason);
    rollups.add(row, 1, row.avoidable, row.gateReason);
  }
  if (identity === row.identity && waitUntil === row.waitUntil) return serverSent;
  await updateFacts(tx, { seq: row.seq, ts: row.ts, server: row.server, identity, waitUntil });
  if (row.counted === 1 && identity !== row.identity) {
    rollups.addSend({ ts: row.ts, server: row.server, identity: row.identity, bucket: row.bucket }, -1);
    rollups.addSend({ ts: row.ts, server: row.server, identity, bucket: row.bucket }, 1);
  }
  return true;
}
