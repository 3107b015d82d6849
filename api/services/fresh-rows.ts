import type { EventRow } from '../../db/event-row.ts';
import type { FoldFacts, SeqRun } from '../../db/queries/fold-queue.ts';

/**
 * The facts of the events this process stored and has not folded yet, by seq: a fold in the same process takes them
 * from here and reads back only the columns that may have changed since (db/queries/fold-queue.ts foldRows), instead
 * of every event's whole row. Seqs are never reused (both stores number events without reuse), so a seq held here
 * always names the row it was stored as. What is not here (another process stored it, this one restarted, or the
 * bound was reached) is read back whole: holding it is an optimisation, never what makes a count exact.
 */
export class FreshRows {
  private readonly facts = new Map<number, FoldFacts>();

  constructor(private readonly max: number) {}

  /** The facts known, for the fold to read the rest of. */
  get known(): ReadonlyMap<number, FoldFacts> {
    return this.facts;
  }

  /**
   * Called once the transaction that stored the rows has committed. Rows that would pass the bound empty it first:
   * what it held is read back, and rows that another process or a `foldAll` folded (this one never hears of it)
   * cannot pile up.
   */
  remember(stored: ReadonlyMap<number, EventRow>): void {
    if (this.facts.size + stored.size > this.max) this.facts.clear();
    for (const [seq, row] of stored) {
      if (this.facts.size >= this.max) return;
      this.facts.set(seq, factsOf(row));
    }
  }

  /** Called once the fold of these runs has committed (a fold that rolled back leaves them for the next). */
  forget(runs: readonly SeqRun[]): void {
    for (const run of runs) for (let seq = run.firstSeq; seq <= run.lastSeq; seq++) this.facts.delete(seq);
  }
}

/** The row's facts without its line: what the fold would read back, and nothing the fold never reads. */
function factsOf(row: EventRow): FoldFacts {
  return {
    eventId: row.eventId,
    ts: row.ts,
    source: row.source,
    protocol: row.protocol,
    client: row.client,
    server: row.server,
    session: row.session,
    httpMethod: row.httpMethod,
    httpPath: row.httpPath,
    httpStatus: row.httpStatus,
    rpcMethod: row.rpcMethod,
    rpcName: row.rpcName,
    era: row.era,
    protocolVersion: row.protocolVersion,
    continuation: row.continuation,
    rpcCode: row.rpcCode,
    frames: row.frames,
    latencyMs: row.latencyMs,
    discoveryRead: row.discoveryRead,
    ctxRequested: row.ctxRequested,
    ctxApplied: row.ctxApplied,
    ctxReason: row.ctxReason,
    timeout: row.timeout,
    correlation: row.correlation,
    requestId: row.requestId,
    actProfile: row.actProfile,
  };
}
