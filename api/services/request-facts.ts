import { CountChanges } from '../../db/counters/changes.ts';
import { ERA_CLIENT_COUNTS, ERA_SERVER_COUNTS } from '../../db/counters/families.ts';
import { FamilyChanges } from '../../db/counters/family.ts';
import { type RequestFacts, unreadRequestsPage, writeRequestFacts } from '../../db/queries/classification.ts';
import { auditTouched } from '../../db/queries/denial-audit.ts';
import type { Store } from '../../db/runner.ts';
import { eraOf, isContinuation, protocolVersionOf } from '../../shared/era.ts';
import { validateEvent } from '../../shared/event.ts';
import { rpcNameOf } from '../../shared/frames.ts';
import { backfillOnce } from './paged-backfill.ts';

/**
 * Reads, from the lines of MCP events stored before migration storms_by_sender, what the requests say of themselves
 * (DOMAIN.md section 10): what a method names (a storm is titled by the tool), the era, the protocol version, and
 * whether a round continues its call. Once per store, a page per transaction, at start before the gate and the
 * storms are replayed from them (api/server.ts; the migration asks for that replay, and sets it done for a store with
 * no events). Answers how many events changed.
 *
 * It re-derives facts, not classifications: a 2026-07-28 input request stored before keeps the bucket it was filed
 * under.
 */
export function backfillRequestFacts(store: Store): Promise<number> {
  return backfillOnce(
    store,
    { done: 'request_facts_v1', progress: 'request_facts_v1_after' },
    (afterSeq) => unreadRequestsPage(store, afterSeq, PAGE),
    async (tx, page) => {
      // The era counts (migration era_counts) move with what they are filed by, and a round now read as a
      // continuation is no send of its identity any more; a queued event is counted by its fold.
      const eras = [ERA_SERVER_COUNTS, ERA_CLIENT_COUNTS].map((family) => new FamilyChanges(family, []));
      const sends = new CountChanges();
      const facts = page.flatMap((row): RequestFacts[] => {
        const parsed = validateEvent(JSON.parse(row.body));
        // Stored rows were valid when accepted; one that cannot be read again keeps what it has.
        if (!parsed.ok) return [];
        const { event } = parsed;
        const protocolVersion = protocolVersionOf(event);
        const read = {
          rpcName: rpcNameOf(event),
          era: eraOf(event, protocolVersion),
          protocolVersion,
          continuation: isContinuation(event) ? 1 : 0,
        };
        const empty = read.rpcName === null && read.era === null && read.protocolVersion === null && !read.continuation;
        if (empty) return [];
        if (row.counted === 1 && row.queued === 0) {
          for (const changes of eras) {
            changes.add(row, -1);
            changes.add({ ...row, ...read }, 1);
          }
          if (row.continuation === 0 && read.continuation === 1) sends.addSend(row, -1);
        }
        return [{ seq: row.seq, ts: row.ts, server: row.server, ...read }];
      });
      await writeRequestFacts(tx, facts);
      await Promise.all(eras.map((changes) => changes.write(tx)));
      await sends.write(tx);
      await auditTouched(tx, sends.touched);
      return facts.length;
    },
  );
}

const PAGE = 2000;
