import { eventDay } from '../../db/event-days.ts';
import { type EventRow, type PackedRows, packRows, storedKey } from '../../db/event-row.ts';
import { coldHourKey, packedKeys } from '../../db/queries/cold-events.ts';
import { withEventDays } from '../../db/queries/day-partitions.ts';
import { queueForFold } from '../../db/queries/fold-queue.ts';
import { LOCK_CLASS, lockKeys } from '../../db/queries/locks.ts';
import {
  ensureServers,
  loadServerConfigs,
  type ServerConfigRow,
  shareServerConfigs,
} from '../../db/queries/servers.ts';
import type { Store, TxRunner } from '../../db/runner.ts';
import { bucketStart, HOUR_MS } from '../../shared/analysis/time-buckets.ts';
import type { BatchLine } from '../../shared/batch.ts';
import {
  type FieldWarning,
  type LensEvent,
  type LineError,
  type ParseResult,
  parseEventLine,
  validateEvent,
} from '../../shared/event.ts';
import type { FreshRows } from './fresh-rows.ts';
import { buildEvent } from './ingest-classify.ts';
import { policyOf } from './policy.ts';

export interface RejectedLine extends LineError {
  line: number;
}

/** A member of an accepted line that was dropped or read differently: the event is stored without it. */
export interface LineWarning extends FieldWarning {
  line: number;
}

export interface IngestReport {
  accepted: number;
  duplicates: number;
  /** The first MAX_REPORTED rejects, in line order. */
  rejected: RejectedLine[];
  rejectedTotal: number;
  /** The first MAX_REPORTED warnings, in line order. */
  warnings: LineWarning[];
  warningsTotal: number;
  /**
   * When the batch's events happened: the first and last `ts` (ISO) of its lines that are events, stored now or
   * already (duplicates), so that a client can open exactly what it sent. Null when no line was an event.
   */
  span: EventSpan | null;
}

/** The first and last time of some stored events, ISO 8601. */
export interface EventSpan {
  first: string;
  last: string;
}

/**
 * An item of a batch: an NDJSON line still to decode, a value already decoded (an element of a JSON array, an
 * access-log line or a span read as an event, with what its reader had to leave out), or a line its reader refused.
 */
export type BatchItem =
  | BatchLine
  | { line: number; value: unknown; warnings?: readonly FieldWarning[] }
  | { line: number; refused: LineError };

interface ValidEvent {
  event: LensEvent;
  body: string;
}

const MAX_REPORTED = 1000;
const INSERT_CHUNK = 2000;
const YIELD_EVERY = 500;

/**
 * Validates, classifies and stores one batch. The good items commit together in one transaction before the
 * report is returned, queued for the fold that counts them (api/services/fold.ts, behind the commit); each bad
 * item is reported with its line number and never half-applied.
 *
 * The CPU work (decode, validate, classify, identity, packing the lines) happens before the transaction, against
 * the configuration as last committed, so that it overlaps with another batch's commit; inside the transaction the
 * configuration is read again under lock and, in the rare case it changed meanwhile, the batch is classified again.
 * Once it has committed, the stored rows go to `fresh`, for a fold in this process to take.
 */
export async function ingestBatch(store: Store, items: readonly BatchItem[], fresh?: FreshRows): Promise<IngestReport> {
  const { valid, notes } = await validateItems(items);
  if (valid.length === 0) return { accepted: 0, duplicates: 0, ...notes, span: null };

  const names = [...new Set(valid.map((v) => v.event.server))];
  const seen = await loadServerConfigs(store, names);
  // Servers never seen are registered before the transaction, which then only holds their configuration shared. On
  // Citus (docs/adr/0014-distribution-by-server.md) `servers` is a reference table, whose every write locks its one
  // shard: two batches that both wrote it in their transactions deadlocked.
  const known = new Set(seen.map((row) => row.name));
  const unseen = names.filter((name) => !known.has(name));
  await ensureServers(store, unseen);
  let chunks = await buildChunks(valid, seen);
  // PostgreSQL keeps events in day partitions: each day the batch holds has one before the transaction begins.
  const days = valid.map((v) => eventDay(v.event.ts));
  const stored = await withEventDays(store, days, () =>
    store.transaction(async (tx) => {
      await shareServerConfigs(tx, names);
      const current = await loadServerConfigs(tx, names);
      if (configChanged(seen, current)) chunks = await buildChunks(valid, current);
      return insertAll(tx, await withoutPacked(tx, chunks));
    }),
  );
  fresh?.remember(stored);
  const accepted = stored.size;
  return { accepted, duplicates: valid.length - accepted, ...notes, span: spanOf(valid) };
}

/** The first and last time of events read from a batch; a loop, not a spread: a batch holds up to 100,000. */
function spanOf(valid: readonly ValidEvent[]): EventSpan | null {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const { event } of valid) {
    if (event.ts < first) first = event.ts;
    if (event.ts > last) last = event.ts;
  }
  return valid.length === 0 ? null : { first: new Date(first).toISOString(), last: new Date(last).toISOString() };
}

async function validateItems(items: readonly BatchItem[]) {
  const valid: ValidEvent[] = [];
  const notes = { rejected: [] as RejectedLine[], rejectedTotal: 0, warnings: [] as LineWarning[], warningsTotal: 0 };
  for (const [index, item] of items.entries()) {
    if (index % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
    const { result, body } = readItem(item);
    if (result.ok) {
      valid.push({ event: result.event, body });
      for (const warning of result.warnings) {
        notes.warningsTotal++;
        if (notes.warnings.length < MAX_REPORTED) notes.warnings.push({ line: item.line, ...warning });
      }
    } else {
      notes.rejectedTotal++;
      if (notes.rejected.length < MAX_REPORTED) notes.rejected.push({ line: item.line, ...result.error });
    }
  }
  return { valid, notes };
}

/** One item as an event, with the line the store keeps of it; a reader's warnings come before the event's own. */
function readItem(item: BatchItem): { result: ParseResult; body: string } {
  if ('text' in item) return { result: parseEventLine(item.text), body: item.text };
  if ('refused' in item) return { result: { ok: false, error: item.refused }, body: '' };
  const result = validateEvent(item.value);
  if (result.ok && item.warnings !== undefined && item.warnings.length > 0) {
    result.warnings = [...item.warnings, ...result.warnings];
  }
  return { result, body: result.ok ? JSON.stringify(item.value) : '' };
}

/** Events built in insert chunks, their lines already packed: all the CPU work the transaction needs done. */
async function buildChunks(valid: readonly ValidEvent[], configs: readonly ServerConfigRow[]): Promise<PackedRows[]> {
  const policies = new Map(configs.map((row) => [row.name, policyOf(row)]));
  const none = policyOf(null);
  const chunks: PackedRows[] = [];
  for (let start = 0; start < valid.length; start += INSERT_CHUNK) {
    const built: EventRow[] = [];
    for (const [index, { event, body }] of valid.slice(start, start + INSERT_CHUNK).entries()) {
      if (index % YIELD_EVERY === YIELD_EVERY - 1) await yieldToEventLoop();
      built.push(buildEvent(event, body, policies.get(event.server) ?? none));
    }
    await yieldToEventLoop();
    chunks.push(packRows(built));
  }
  return chunks;
}

/**
 * The chunks without the events a cold block already holds (db/queries/cold-events.ts): `events`' unique key no
 * longer sees an event packed past the hot window, so a batch sent again later would store and count it twice. Only
 * the hours a compaction may have packed are looked in: those before the last whole hour, which no hot window (at
 * least MIN_HOT_WINDOW_MS) reaches, by this clock; live batches ask nothing. The hours are held shared until the commit,
 * so that no compaction packs one of them meanwhile.
 */
async function withoutPacked(tx: TxRunner, chunks: readonly PackedRows[]): Promise<readonly PackedRows[]> {
  const recent = bucketStart(Date.now(), HOUR_MS) - HOUR_MS;
  const hours = new Map<string, { server: string; hour: number }>();
  for (const { rows } of chunks) {
    for (const row of rows) {
      if (row.ts >= recent) continue;
      const hour = bucketStart(row.ts, HOUR_MS);
      hours.set(coldHourKey(row.server, hour), { server: row.server, hour });
    }
  }
  if (hours.size === 0) return chunks;
  await lockKeys(tx, LOCK_CLASS.coldHour, [...hours.keys()], 'shared');
  const packed = await packedKeys(tx, [...hours.values()]);
  if (packed.size === 0) return chunks;
  return chunks.map((chunk) => packRows(chunk.rows.filter((row) => !packed.has(storedKey(row)))));
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

/**
 * Sends every chunk without waiting for the one before, then queues the events that were new for the fold. Answers
 * them by seq.
 */
async function insertAll(tx: TxRunner, chunks: readonly PackedRows[]): Promise<Map<number, EventRow>> {
  const results = await Promise.all(chunks.map((chunk) => tx.insertEvents(chunk)));
  // A second copy of an event inside the batch was not stored (seq 0): the first one was.
  const stored = new Map<number, EventRow>();
  chunks.forEach((chunk, index) => {
    const seqs = results[index] as ArrayLike<number>;
    chunk.rows.forEach((row, i) => {
      const seq = seqs[i] as number;
      if (seq > 0) stored.set(seq, row);
    });
  });
  await queueForFold(
    tx,
    [...stored].map(([seq, row]) => ({ seq, ts: row.ts })),
    Date.now(),
  );
  return stored;
}
