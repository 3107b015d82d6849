import { isSentByServer } from '../../shared/frames.ts';
import type { EventColumns } from '../event-row.ts';
import { DenialTouches } from '../queries/denial-audit.ts';
import type { SqlRunner } from '../runner.ts';
import { ActionabilityChanges } from './actionability.ts';
import { applyCodeDeltas, type CodeDelta } from './codes.ts';
import { applyContextDeltas, type ContextDelta } from './context.ts';
import { EraChanges } from './eras.ts';
import { applyIdentityDeltas, type IdentityDelta } from './identities.ts';
import { applyRollupDeltas, CONDUCT_COLUMNS, MINUTE_MS, type RollupDelta } from './rollups.ts';
import { applyTotalDeltas } from './totals.ts';

/** What a rollup row is keyed by, as any stored event knows it, and whether its client had read discovery. */
export interface Counted extends Pick<EventColumns, 'ts' | 'server' | 'client' | 'bucket' | 'kind' | 'rpcMethod'> {
  /** Stored as 0/1 in rows, a boolean in analysis events; null when the event did not say. Who sent the request
   * follows from rpcMethod (shared/frames.ts isSentByServer). */
  discoveryRead: number | boolean | null;
}

const UNDISCOVERED = CONDUCT_COLUMNS.indexOf('undiscovered');

/** A stored event's sampling context (DOMAIN.md section 7), as its row keeps it; null requested: not sampling. */
export type Sampled = Pick<EventColumns, 'ts' | 'server' | 'client' | 'ctxRequested' | 'ctxApplied' | 'ctxReason'>;

/** A stored event's classification and codes, as its row keeps them. */
export type Coded = Pick<EventColumns, 'ts' | 'server' | 'bucket' | 'kind' | 'rpcCode' | 'httpStatus'>;

/** Everything a stored record's counts are filed by, in every family: what a fold, a join or a replay changes. */
export interface CountedRecord
  extends Counted,
    Sampled,
    Coded,
    Pick<EventColumns, 'identity' | 'avoidable' | 'gateReason' | 'actProfile' | 'era'> {
  /** 1 (or true) for an MRTR round answering an input request: no send of its identity. */
  continuation: number | boolean;
}

/** A gate verdict as the counts file it: avoidable (0/1) and why. */
export interface VerdictCount {
  avoidable: number;
  reason: string | null;
}

/**
 * The changes one transaction makes to the maintained counts (rollups, context, identity and code counts, all-time
 * totals), recorded where they happen by what happened (`stored`, `shadowed`, `reclassified`, `verdict`) and written
 * once at its end.
 * The invariant (ADR 10): a record's requests and its other counts are in once it is folded; its avoidable count
 * whenever its stored verdict says avoidable.
 */
export class CountChanges {
  private readonly deltas: RollupDelta[] = [];
  private readonly context: ContextDelta[] = [];
  private readonly sends: IdentityDelta[] = [];
  private readonly failures: CodeDelta[] = [];
  /** The identities whose decision-store audit the change may move (db/queries/denial-audit.ts). */
  private readonly denials = new DenialTouches();
  private readonly profiles = new ActionabilityChanges();
  private readonly eras = new EraChanges();

  /** A record folded: in every family. Its avoidable count follows from the gate step of the same fold (verdict). */
  stored(record: CountedRecord): void {
    this.add(record, 1, 0);
    this.addSampled(record, 1);
    this.addSend(record, 1);
    this.addFailure(record, 1);
    this.profiles.count(record, 1);
    this.eras.count(record, 1);
  }

  /** A proxy record joined to its client's: out of every family, its avoidable count with it. */
  shadowed(record: CountedRecord): void {
    this.add(record, -1, -record.avoidable, record.gateReason);
    this.addSampled(record, -1);
    this.addSend(record, -1);
    this.addFailure(record, -1);
    this.profiles.count(record, -1);
    this.eras.count(record, -1);
  }

  /**
   * A counted record moved to another bucket and kind. One still queued for its fold is in no count but its verdict's
   * (none: replays judge folded records only); its fold counts it under the bucket it has by then. Sampling and
   * identity counts do not follow the bucket, nor do actionability profiles (db/counters/actionability.ts); the era
   * counts follow the kind.
   */
  reclassified(
    record: Counted & Coded & Pick<CountedRecord, 'avoidable' | 'gateReason' | 'identity' | 'era' | 'continuation'>,
    next: { bucket: string; kind: string },
    folded: boolean,
  ): void {
    const requests = folded ? 1 : 0;
    this.denials.touch(record);
    this.denials.touch({ identity: record.identity, bucket: next.bucket, ts: record.ts });
    const moved = { ...record, ...next };
    this.add(record, -requests, -record.avoidable, record.gateReason);
    this.add(moved, requests, record.avoidable, record.gateReason);
    this.addFailure(record, -requests);
    this.addFailure(moved, requests);
    if (folded) {
      this.eras.count(record, -1);
      this.eras.count(moved, 1);
    }
  }

  /** A counted record's gate verdict changed: its avoidable count moves from the old reason to the new. */
  verdict(record: Counted, before: VerdictCount, after: VerdictCount): void {
    this.add(record, 0, -before.avoidable, before.reason);
    this.add(record, 0, after.avoidable, after.reason);
  }

  /**
   * Counts `requests` more (or fewer) requests of the event's kind and `avoidable` more (or fewer) avoidable ones,
   * the latter for the gate reason `reason`. The verbs above say why; a one-off re-filing (api/services/stored-facts.ts)
   * moves counts with it directly.
   */
  add(event: Counted, requests: number, avoidable: number, reason: string | null = null): void {
    if (requests === 0 && avoidable === 0) return;
    const minute = event.ts - (event.ts % MINUTE_MS);
    const conduct = CONDUCT_COLUMNS.map((column) => (column === reason ? avoidable : 0));
    // Counts are filed under the request's sender: a request the server sent to the client (its sampling request,
    // re-sent after a denial) is the server's conduct, kept under (server, no client) and never blamed on the client.
    const client = isSentByServer(event.rpcMethod) ? null : event.client;
    // Conduct is a named client's: the family per server sums it over its clients.
    const undiscovered = event.discoveryRead === false || event.discoveryRead === 0;
    if (undiscovered && client !== null) conduct[UNDISCOVERED] = requests;
    this.deltas.push({
      minute,
      server: event.server,
      client,
      bucket: event.bucket,
      kind: event.kind,
      requests,
      avoidable,
      conduct,
    });
  }

  /** Counts a sampling request in (+1) or out (-1) of the context counts. */
  private addSampled(event: Sampled, requests: number): void {
    if (event.ctxRequested === null) return;
    this.context.push({
      minute: event.ts - (event.ts % MINUTE_MS),
      server: event.server,
      client: event.client,
      requested: event.ctxRequested,
      applied: event.ctxApplied,
      reason: event.ctxReason,
      requests,
    });
  }

  /**
   * Counts a send of the event's request identity in (+1) or out (-1) of its hour; the identity is audited anew. An
   * MRTR continuation is audited (its answer is an answer to the request) but no send.
   */
  addSend(
    event: { ts: number; server: string; identity: string | null; bucket?: string; continuation?: number | boolean },
    sends: number,
  ): void {
    this.denials.touch(event);
    if (event.identity === null || event.continuation === 1 || event.continuation === true) return;
    this.sends.push({ ts: event.ts, server: event.server, identity: event.identity, sends });
  }

  /** Counts a counted failure in (+1) or out (-1) of the counts per code pair. */
  private addFailure(event: Coded, requests: number): void {
    if (event.bucket === 'ok' || event.bucket === 'unknown' || requests === 0) return;
    const { server, bucket, kind, rpcCode, httpStatus } = event;
    this.failures.push({
      minute: event.ts - (event.ts % MINUTE_MS),
      server,
      bucket,
      kind,
      rpcCode,
      httpStatus,
      requests,
    });
  }

  async write(db: SqlRunner): Promise<void> {
    // Different tables: sent together, so the writer never waits on this thread between them.
    await Promise.all([
      applyRollupDeltas(db, this.deltas),
      applyContextDeltas(db, this.context),
      applyIdentityDeltas(db, this.sends),
      applyCodeDeltas(db, this.failures),
      this.profiles.write(db),
      this.eras.write(db),
      // Last, in every writer alike: concurrent transactions lock rows table by table in one order.
      applyTotalDeltas(db, this.deltas),
    ]);
    // After the counts: it reads the events as this transaction left them, and writes only its own tables.
    await this.denials.write(db);
    this.deltas.length = 0;
    this.context.length = 0;
    this.sends.length = 0;
    this.failures.length = 0;
  }
}
