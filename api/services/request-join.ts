import type { CountedRecord } from '../../db/counters/families.ts';
import { type FoldRow, type SeqRun, stillQueued } from '../../db/queries/fold-queue.ts';
import { type TimeWindow, unjoinedRecords, writePairs } from '../../db/queries/request-join.ts';
import type { TxRunner } from '../../db/runner.ts';
import { clientWindow, type JoinFacts, pairRecords, proxyWindow } from '../../shared/request-join.ts';

/**
 * Joins a fold's records to the other side's records of the same requests (DOMAIN.md section 2: one request seen
 * by a client and a proxy is one request). Runs in the fold's transaction, under the fold lock: the records folded
 * before are all committed, and a record still queued is left out, to be joined when its own fold comes (the later
 * of two partners finds the earlier). Returns the proxy records it stopped counting.
 */
export async function joinFreshRecords(tx: TxRunner, fresh: readonly FoldRow[]): Promise<CountedRecord[]> {
  const facts = fresh.map(joinFactsOf);
  const known = seqRuns(fresh);
  const clients = facts.filter((f) => f.source === 'client');
  const proxies = facts.filter((f) => f.source === 'proxy');
  if (clients.length === 0 && proxies.length === 0) return [];
  const [storedProxies, storedClients] = await Promise.all([
    clients.length === 0 ? [] : unjoinedRecords(tx, 'proxy', { ...probesOf(clients, proxyWindow), known }),
    proxies.length === 0 ? [] : unjoinedRecords(tx, 'client', { ...probesOf(proxies, clientWindow), known }),
  ]);
  // Asked after the reads, of what they found: none of it can leave the queue meanwhile, as this fold holds the lock.
  const queued = await stillQueued(
    tx,
    [...storedProxies, ...storedClients].map((stored) => stored.order),
  );
  const folded = (stored: JoinFacts) => !queued.has(stored.order);
  // The fresh records are left out of the queries: this has them already.
  const pairs = pairRecords(union(clients, storedClients.filter(folded)), union(proxies, storedProxies.filter(folded)));
  return writePairs(tx, pairs);
}

function joinFactsOf(row: FoldRow): JoinFacts {
  return {
    order: row.seq,
    eventId: row.eventId,
    source: row.source === 'proxy' ? 'proxy' : 'client',
    server: row.server,
    ts: row.ts,
    latencyMs: row.latencyMs,
    session: row.session,
    httpMethod: row.httpMethod,
    httpPath: row.httpPath,
    httpStatus: row.httpStatus,
    timeout: row.timeout === 1,
    requestId: row.requestId,
    correlation: row.correlation,
  };
}

/**
 * The keys the records carry and the time windows around them, per server, merged where they overlap or nearly do:
 * a batch spread over a day asks for its hours, not for the whole day.
 */
function probesOf(records: readonly JoinFacts[], windowOf: (record: JoinFacts) => [number, number]) {
  const requestIds = new Set<string>();
  const correlations = new Set<string>();
  const perServer = new Map<string, [number, number][]>();
  for (const record of records) {
    if (record.requestId !== null) requestIds.add(record.requestId);
    if (record.correlation !== null) correlations.add(record.correlation);
    const list = perServer.get(record.server);
    if (list === undefined) perServer.set(record.server, [windowOf(record)]);
    else list.push(windowOf(record));
  }
  const windows: TimeWindow[] = [];
  for (const [server, list] of perServer) {
    list.sort((a, b) => a[0] - b[0]);
    let [from, to] = list[0] as [number, number];
    for (const [nextFrom, nextTo] of list) {
      if (nextFrom > to + MERGE_GAP_MS) {
        windows.push({ server, from, to });
        from = nextFrom;
      }
      to = Math.max(to, nextTo);
    }
    windows.push({ server, from, to });
  }
  return { requestIds: [...requestIds], correlations: [...correlations], windows };
}

/** Windows closer than this are asked for as one: fewer queries, few rows more. */
const MERGE_GAP_MS = 60_000;

/** The fresh records' seqs as runs of consecutive ones (they come in seq order). */
function seqRuns(fresh: readonly FoldRow[]): SeqRun[] {
  const runs: SeqRun[] = [];
  for (const { seq } of fresh) {
    const last = runs[runs.length - 1];
    if (last !== undefined && seq === last.lastSeq + 1) last.lastSeq = seq;
    else runs.push({ firstSeq: seq, lastSeq: seq });
  }
  return runs;
}

/** The fresh records and the stored ones, each once: a fresh record read back is the same record. */
function union(fresh: readonly JoinFacts[], stored: readonly JoinFacts[]): JoinFacts[] {
  const byId = new Map(fresh.map((record) => [record.eventId, record]));
  for (const record of stored) if (!byId.has(record.eventId)) byId.set(record.eventId, record);
  return [...byId.values()];
}
