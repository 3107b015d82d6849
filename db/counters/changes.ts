import type { VerdictMove } from '../../shared/analysis/gate-step.ts';
import type { SqlRunner } from '../runner.ts';
import { type CountedRecord, type Filed, FOLDED_FAMILIES, PAIR_COUNTS } from './families.ts';
import { type CounterFamily, FamilyChanges, type Verb } from './family.ts';
import { applyIdentityDeltas, type IdentityDelta } from './identities.ts';
import { applyTotalDeltas } from './totals.ts';

/** What a request's counts are filed by, but its verdict. */
export type Counted = Omit<Filed, 'avoidable' | 'gateReason'>;

/** What the families a reclassification moves file a record by (not its sampling, nor its profile). */
export type Reclassified = Omit<CountedRecord, 'ctxRequested' | 'ctxApplied' | 'ctxReason' | 'actProfile'>;

/** A record that touched its identity's audit: its identity, its bucket when known, its time. */
export interface Touched {
  identity: string | null;
  bucket?: string;
  ts: number;
}

/**
 * The changes one transaction makes to the maintained counts (every family of db/counters/families.ts, identity
 * sends, all-time totals), recorded by what happened (`stored`, `shadowed`, `reclassified`, `verdicts`) and written once at its end. Each verb moves the families whose declaration names it.
 * The invariant (ADR 10): a record's requests and its other counts are in once it is folded; its avoidable count
 * whenever its stored verdict says avoidable.
 */
export class CountChanges {
  private readonly families = FOLDED_FAMILIES.filter((family) => family.of === undefined).map(
    (family) =>
      new FamilyChanges(
        family,
        FOLDED_FAMILIES.filter((kept) => kept.of === family),
      ),
  );
  private readonly byVerb = new Map<Verb, FamilyChanges<CountedRecord>[]>(
    (['stored', 'shadowed', 'reclassified', 'verdict'] as const).map((verb) => [
      verb,
      this.families.filter((changes) => changes.family.moves.includes(verb)),
    ]),
  );
  private readonly pair = this.family(PAIR_COUNTS);
  private readonly sends: IdentityDelta[] = [];
  /**
   * The records whose identity's decision-store audit the changes may move: the caller audits them after the counts
   * are written (db/queries/denial-audit.ts auditTouched).
   */
  readonly touched: Touched[] = [];

  /** A record folded: in every family. Its avoidable count follows from the gate step of the same fold (verdict). */
  stored(record: CountedRecord): void {
    for (const changes of this.moved('stored')) changes.add(record, 1, 'facts');
    this.addSend(record, 1);
  }

  /** A proxy record joined to its client's: out of every family, its avoidable count with it. */
  shadowed(record: CountedRecord): void {
    for (const changes of this.moved('shadowed')) changes.add(record, -1);
    this.addSend(record, -1);
  }

  /**
   * A counted record moved to another bucket and kind. One still queued for its fold is in no count but its verdict's
   * (none: replays judge folded records only); its fold counts it under the bucket it has by then.
   */
  reclassified(row: Reclassified, next: { bucket: string; kind: string }, folded: boolean): void {
    this.touched.push(row, { identity: row.identity, bucket: next.bucket, ts: row.ts });
    // The families it moves read none of what a Reclassified leaves out (db/counters/families.ts: sampling and
    // profiles do not follow the bucket).
    const record = row as CountedRecord;
    const moved = { ...record, ...next };
    const part = folded ? 'all' : 'verdict';
    for (const changes of this.moved('reclassified')) {
      changes.add(record, -1, part);
      changes.add(moved, 1, part);
    }
  }

  /** Counted records' gate verdicts changed (the gate pass answers them): avoidable counts move to the new reason. */
  verdicts(moves: readonly VerdictMove[]): void {
    const families = this.moved('verdict');
    for (const { record: event, before, after } of moves) {
      const record: Counted = event;
      // One copy, its verdict set before and then after: `add` reads a record and keeps none of it.
      const filed = { ...record, avoidable: before.avoidable, gateReason: before.reason } as CountedRecord;
      for (const changes of families) changes.add(filed, -1, 'verdict');
      filed.avoidable = after.avoidable;
      filed.gateReason = after.reason;
      for (const changes of families) changes.add(filed, 1, 'verdict');
    }
  }

  /**
   * Counts `requests` more (or fewer) requests and `avoidable` more (or fewer) avoidable ones, the latter for the gate
   * reason `reason`, in the request counts alone: a one-off re-filing (api/services/stored-facts.ts) moves them with it.
   */
  add(event: Counted, requests: number, avoidable: number, reason: string | null = null): void {
    const record = { ...event, avoidable: 1, gateReason: reason } as CountedRecord;
    if (requests !== 0) this.pair.add(record, requests, 'facts');
    if (avoidable !== 0) this.pair.add(record, avoidable, 'verdict');
  }

  /**
   * Counts a send of the event's request identity in (+1) or out (-1) of its hour; the identity is audited anew. An
   * MRTR continuation is audited (its answer is an answer to the request) but no send.
   */
  addSend(
    event: { ts: number; server: string; identity: string | null; bucket?: string; continuation?: number | boolean },
    sends: number,
  ): void {
    this.touched.push(event);
    if (event.identity === null || event.continuation === 1 || event.continuation === true) return;
    this.sends.push({ ts: event.ts, server: event.server, identity: event.identity, sends });
  }

  private moved(verb: Verb): readonly FamilyChanges<CountedRecord>[] {
    return this.byVerb.get(verb) ?? [];
  }

  private family(family: CounterFamily<CountedRecord>): FamilyChanges<CountedRecord> {
    const changes = this.families.find((c) => c.family === family);
    if (changes === undefined) throw new Error('not a folded family');
    return changes;
  }

  async write(db: SqlRunner): Promise<void> {
    // The all-time totals take the request counts' changes, read before they are written (and cleared).
    const totals = this.pair.rows();
    // Different tables: sent together, so the writer never waits on this thread between them.
    await Promise.all([
      ...this.families.map((changes) => changes.write(db)),
      applyIdentityDeltas(db, this.sends),
      // Last, in every writer alike: concurrent transactions lock rows table by table in one order.
      applyTotalDeltas(db, totals),
    ]);
    this.sends.length = 0;
  }
}
