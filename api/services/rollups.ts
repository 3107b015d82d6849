import { applyRollupDeltas, MINUTE_MS, type RollupDelta } from '../../db/queries/rollups.ts';
import type { SqlRunner } from '../../db/runner.ts';

/** What a rollup row is keyed by, as any stored event knows it. */
export interface Counted {
  ts: number;
  server: string;
  client: string | null;
  bucket: string;
  kind: string;
}

/**
 * The changes one transaction makes to the rollups, collected where they happen (insert, shadowing, gate verdicts,
 * reclassification) and written once at its end, in the same transaction as the events.
 */
export class RollupChanges {
  private readonly deltas: RollupDelta[] = [];

  add(event: Counted, requests: number, avoidable: number): void {
    if (requests === 0 && avoidable === 0) return;
    const minute = event.ts - (event.ts % MINUTE_MS);
    this.deltas.push({
      minute,
      server: event.server,
      client: event.client,
      bucket: event.bucket,
      kind: event.kind,
      requests,
      avoidable,
    });
  }

  async write(db: SqlRunner): Promise<void> {
    await applyRollupDeltas(db, this.deltas);
    this.deltas.length = 0;
  }
}
