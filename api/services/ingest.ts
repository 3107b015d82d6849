import type { EventRow } from '../../db/event-row.ts';
import { shadowProxyDuplicates } from '../../db/queries/classification.ts';
import { ensureServers, loadServerConfigs, type ServerConfigRow } from '../../db/queries/servers.ts';
import type { Store, TxRunner } from '../../db/runner.ts';
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

interface ValidEvent {
  event: LensEvent;
  body: string;
}

const MAX_REPORTED = 1000;
const INSERT_CHUNK = 2000;
const YIELD_EVERY = 500;

/**
 * Validates, classifies and stores one batch. The good items commit together in one transaction before the
 * report is returned; each bad item is reported with its line number and never half-applied.
 *
 * The CPU work (decode, validate, classify, identity) happens before the transaction, against the configuration
 * as last committed, so that it overlaps with another batch's commit; inside the transaction the configuration is
 * read again under lock and, in the rare case it changed meanwhile, the batch is classified again.
 */
export async function ingestBatch(store: Store, items: readonly BatchItem[]): Promise<IngestReport> {
  const { valid, rejected, rejectedTotal } = await validateItems(items);
  if (valid.length === 0) return { accepted: 0, duplicates: 0, rejected, rejectedTotal };

  const names = [...new Set(valid.map((v) => v.event.server))];
  const seen = await loadServerConfigs(store, names);
  let rows = await buildRows(valid, seen);
  const accepted = await store.transaction(async (tx) => {
    await ensureServers(tx, names);
    const current = await loadServerConfigs(tx, names);
    if (configChanged(seen, current)) rows = await buildRows(valid, current);
    return insertAll(tx, rows);
  });
  return { accepted, duplicates: valid.length - accepted, rejected, rejectedTotal };
}

async function validateItems(items: readonly BatchItem[]) {
  const valid: ValidEvent[] = [];
  const rejected: RejectedLine[] = [];
  let rejectedTotal = 0;
  for (const [index, item] of items.entries()) {
    if (index % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
    const result = 'text' in item ? parseEventLine(item.text) : validateEvent(item.value);
    if (result.ok) {
      valid.push({ event: result.event, body: 'text' in item ? item.text : JSON.stringify(item.value) });
    } else {
      rejectedTotal++;
      if (rejected.length < MAX_REPORTED) rejected.push({ line: item.line, ...result.error });
    }
  }
  return { valid, rejected, rejectedTotal };
}

async function buildRows(valid: readonly ValidEvent[], configs: readonly ServerConfigRow[]): Promise<EventRow[]> {
  const policies = new Map(configs.map((row) => [row.name, policyOf(row)]));
  const none = policyOf(null);
  const rows: EventRow[] = [];
  for (const [index, { event, body }] of valid.entries()) {
    if (index % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
    rows.push(toEventRow(event, body, policies.get(event.server) ?? none));
  }
  return rows;
}

/**
 * Long CPU loops give way now and then, so another batch's transaction (waiting on a reply from the writer) is
 * not held up behind this one's parsing: that overlap is what keeps both cores busy.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A server first seen by this batch has no row before and an unconfigured one after: that is no change. */
function configChanged(before: readonly ServerConfigRow[], after: readonly ServerConfigRow[]): boolean {
  const stamps = new Map(before.map((row) => [row.name, row.updatedAt]));
  return after.some((row) => (stamps.get(row.name) ?? 0) !== row.updatedAt);
}

/** Sends every chunk without waiting for the one before, then joins client and proxy records of one request. */
async function insertAll(tx: TxRunner, rows: readonly EventRow[]): Promise<number> {
  const chunks: EventRow[][] = [];
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) chunks.push(rows.slice(start, start + INSERT_CHUNK));
  const results = await Promise.all(chunks.map((chunk) => tx.insertEvents(chunk)));
  const fresh = { client: new Set<string>(), proxy: new Set<string>() };
  let inserted = 0;
  results.forEach((ids, index) => {
    inserted += ids.size;
    for (const row of chunks[index] ?? []) {
      if (row.correlation !== null && ids.has(row.eventId)) {
        (row.source === 'client' ? fresh.client : fresh.proxy).add(row.correlation);
      }
    }
  });
  await shadowProxyDuplicates(tx, { client: [...fresh.client], proxy: [...fresh.proxy] });
  return inserted;
}
