import { unnamedPage, writeRpcNames } from '../../db/queries/classification.ts';
import { getSetting, putSetting, setSettingOnce } from '../../db/queries/settings.ts';
import type { Store } from '../../db/runner.ts';
import { validateEvent } from '../../shared/event.ts';
import { NAMING_METHODS, rpcNameOf } from '../../shared/frames.ts';

/**
 * Set once every stored event has the name its method names (migration storms_by_sender sets it for a store with no
 * events); `…_after` holds the last page done, in the same transaction as the page, so a crash resumes after it.
 */
const DONE_KEY = 'rpc_names_v1';
const PROGRESS_KEY = 'rpc_names_v1_after';
const PAGE = 2000;

/**
 * Reads, from their lines, what the methods of events stored before migration storms_by_sender named (a tool call's
 * tool, a prompt, a resource): storms are titled by it. Once per store, a page per transaction, at start before the
 * storms are built again (api/server.ts). Answers how many events got a name.
 */
export async function backfillRpcNames(store: Store): Promise<number> {
  if ((await getSetting(store, DONE_KEY)) !== null) return 0;
  let named = 0;
  let afterSeq = Number((await getSetting(store, PROGRESS_KEY)) ?? 0);
  for (;;) {
    const page = await unnamedPage(store, NAMING_METHODS, afterSeq, PAGE);
    const last = page.at(-1);
    if (last === undefined) break;
    const names = page.flatMap((row) => {
      const parsed = validateEvent(JSON.parse(row.body));
      const rpcName = parsed.ok ? rpcNameOf(parsed.event) : null;
      return rpcName === null ? [] : [{ seq: row.seq, ts: row.ts, server: row.server, rpcName }];
    });
    await store.transaction(async (tx) => {
      await writeRpcNames(tx, names);
      await putSetting(tx, PROGRESS_KEY, String(last.seq));
    });
    named += names.length;
    afterSeq = last.seq;
  }
  await setSettingOnce(store, DONE_KEY, new Date().toISOString());
  return named;
}
