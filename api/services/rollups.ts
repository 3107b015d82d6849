import { applyCodeDeltas, type CodeDelta } from '../../db/queries/codes.ts';
import { applyContextDeltas, type ContextDelta } from '../../db/queries/context.ts';
import { applyIdentityDeltas, type IdentityDelta } from '../../db/queries/identities.ts';
import { applyRollupDeltas, CONDUCT_COLUMNS, MINUTE_MS, type RollupDelta } from '../../db/queries/rollups.ts';
import type { SqlRunner } from '../../db/runner.ts';
import { isSentByServer } from '../../shared/frames.ts';

/** What a rollup row is keyed by, as any stored event knows it, and whether its client had read discovery. */
export interface Counted {
  ts: number;
  server: string;
  client: string | null;
  bucket: string;
  kind: string;
  /** Stored as 0/1 in rows, a boolean in analysis events; null when the event did not say. */
  discoveryRead: number | boolean | null;
  /** Who sent the request follows from it (shared/frames.ts isSentByServer). */
  rpcMethod: string | null;
}

const UNDISCOVERED = CONDUCT_COLUMNS.indexOf('undiscovered');

/** A stored event's sampling context (DOMAIN.md section 7), as its row keeps it; null requested: not sampling. */
export interface Sampled {
  ts: number;
  server: string;
  client: string | null;
  ctxRequested: string | null;
  ctxApplied: string | null;
  ctxReason: string | null;
}

/** A stored event's classification and codes, as its row keeps them. */
export interface Coded {
  ts: number;
  server: string;
  bucket: string;
  kind: string;
  rpcCode: number | null;
  httpStatus: number | null;
}

/**
 * The changes one transaction makes to the rollups, collected where they happen (a fold, shadowing, gate verdicts,
 * reclassification) and written once at its end, in the same transaction as the changes to the events.
 */
export class RollupChanges {
  private readonly deltas: RollupDelta[] = [];
  private readonly context: ContextDelta[] = [];
  private readonly sends: IdentityDelta[] = [];
  private readonly failures: CodeDelta[] = [];

  /**
   * Counts `requests` more (or fewer) requests of the event's kind and `avoidable` more (or fewer) avoidable ones,
   * the latter for the gate reason `reason`.
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

  /**
   * Counts a sampling request in (+1) or out (-1) of the context counts. Only storing and shadowing change them:
   * a reclassification moves a request between buckets, not between scopes.
   */
  addSampled(event: Sampled, requests: number): void {
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
   * Counts a send of the event's request identity in (+1) or out (-1) of its hour. Like the context counts, only
   * storing and shadowing change them.
   */
  addSend(event: { ts: number; identity: string | null }, sends: number): void {
    if (event.identity === null) return;
    this.sends.push({ ts: event.ts, identity: event.identity, sends });
  }

  /**
   * Counts a counted failure in (+1) or out (-1) of the counts per code pair: storing and shadowing change them, and
   * a reclassification (out under the old bucket and kind, in under the new).
   */
  addFailure(event: Coded, requests: number): void {
    if (event.bucket === 'ok' || requests === 0) return;
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
    ]);
    this.deltas.length = 0;
    this.context.length = 0;
    this.sends.length = 0;
    this.failures.length = 0;
  }
}
