import { shadowProxyDuplicates } from '../../db/queries/classification.ts';
import { ensureServers, loadServerConfigs } from '../../db/queries/servers.ts';
import type { Store } from '../../db/runner.ts';
import type { BatchLine } from '../../shared/batch.ts';
import { type LensEvent, type LineError, parseEventLine, validateEvent } from '../../shared/event.ts';
import { toEventRow } from './event-row.ts';
import { policyOf } from './policy.ts';

export interface RejectedLine extends LineError {
  line: number;
}

export interface IngestReport {
  accepted: number;
  duplicates: number;
  /** The first MAX_REPORTED rejects, in line order. */
  rejected: RejectedLine[];
  rejectedTotal: number;
}

/** An item of a batch: an NDJSON line still to decode, or an element of a JSON array already decoded. */
export type BatchItem = BatchLine | { line: number; value: unknown };

const MAX_REPORTED = 1000;
const INSERT_CHUNK = 5000;

/**
 * Validates, classifies and stores one batch. The good items commit together in one transaction before the
 * report is returned; each bad item is reported with its line number and never half-applied.
 */
export async function ingestBatch(store: Store, items: readonly BatchItem[]): Promise<IngestReport> {
  const valid: { event: LensEvent; body: string }[] = [];
  const rejected: RejectedLine[] = [];
  let rejectedTotal = 0;
  for (const item of items) {
    const result = 'text' in item ? parseEventLine(item.text) : validateEvent(item.value);
    if (result.ok) {
      valid.push({ event: result.event, body: 'text' in item ? item.text : JSON.stringify(item.value) });
    } else {
      rejectedTotal++;
      if (rejected.length < MAX_REPORTED) rejected.push({ line: item.line, ...result.error });
    }
  }
  if (valid.length === 0) return { accepted: 0, duplicates: 0, rejected, rejectedTotal };

  const accepted = await store.transaction(async (tx) => {
    const names = [...new Set(valid.map((v) => v.event.server))];
    await ensureServers(tx, names);
    const policies = new Map((await loadServerConfigs(tx, names)).map((row) => [row.name, policyOf(row)]));
    const correlations = new Set<string>();
    let inserted = 0;
    for (let start = 0; start < valid.length; start += INSERT_CHUNK) {
      const rows = valid
        .slice(start, start + INSERT_CHUNK)
        .map(({ event, body }) => toEventRow(event, body, policies.get(event.server) ?? policyOf(null)));
      const fresh = await tx.insertEvents(rows);
      inserted += fresh.size;
      for (const row of rows) if (row.correlation !== null && fresh.has(row.eventId)) correlations.add(row.correlation);
    }
    await shadowProxyDuplicates(tx, [...correlations]);
    return inserted;
  });
  return { accepted, duplicates: valid.length - accepted, rejected, rejectedTotal };
}
