import { CountChanges } from '../../db/counters/changes.ts';
import { failedEventsPage, updateClassification } from '../../db/queries/classification.ts';
import { auditTouched } from '../../db/queries/denial-audit.ts';
import { waitForFoldLock } from '../../db/queries/locks.ts';
import { getServerConfig, lockServerConfig, type ServerConfigRow, saveServerConfig } from '../../db/queries/servers.ts';
import type { SqlRunner, TxRunner } from '../../db/runner.ts';
import { waitUntilFor } from '../../shared/analysis/from-event.ts';
import { classify } from '../../shared/classify/index.ts';
import type { CodeOverride, ServerPolicy } from '../../shared/classify/types.ts';
import type { DiscoveryDocument } from '../../shared/discovery.ts';
import { validateEvent } from '../../shared/event.ts';
import { replayServer } from './gate-maintenance.ts';
import { policyOf } from './policy.ts';
import { type ServiceContext, withTransaction } from './service-context.ts';

export interface ServerConfigView {
  server: string;
  discovery: DiscoveryDocument | null;
  /** The document as it was sent, for display and editing. */
  discoverySource: unknown;
  overrides: readonly CodeOverride[];
  updatedAt: number | null;
}

export interface ConfigChange extends ServerConfigView {
  /** How many stored events changed bucket, kind or rule because of this change. */
  reclassified: number;
}

export async function readServerConfig(store: SqlRunner, server: string): Promise<ServerConfigView | null> {
  const row = await getServerConfig(store, server);
  return row ? viewOf(row) : null;
}

export function setDiscovery({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { server: string; document: DiscoveryDocument; source: unknown };
}) {
  return changeConfig(ctx, input.server, (row) => ({
    ...row,
    discovery: JSON.stringify(input.document),
    discoveryRaw: JSON.stringify(input.source),
  }));
}

export function setOverrides({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { server: string; overrides: CodeOverride[] };
}) {
  return changeConfig(ctx, input.server, (row) => ({ ...row, overrides: JSON.stringify(input.overrides) }));
}

/**
 * A configuration change and the reclassification it implies commit together, so no stored bucket is ever stale:
 * a reader sees the old configuration with the old buckets or the new with the new.
 */
async function changeConfig(
  ctx: ServiceContext,
  server: string,
  edit: (row: ServerConfigRow) => ServerConfigRow,
): Promise<ConfigChange> {
  return withTransaction(ctx, async (tx) => {
    const current = await lockServerConfig(tx, server);
    const base = current ?? { name: server, discovery: null, discoveryRaw: null, overrides: '[]', updatedAt: 0 };
    const next = { ...edit(base), updatedAt: ctx.now };
    await saveServerConfig(tx, next);
    // A fold beside this would count a record under the bucket it read; the queue stays as it is meanwhile.
    await waitForFoldLock(tx);
    const rollups = new CountChanges();
    const reclassified = await reclassifyFailures(tx, server, policyOf(next), rollups);
    if (reclassified > 0) rollups.verdicts(await replayServer(tx, server));
    await rollups.write(tx);
    await auditTouched(tx, rollups.touched);
    return { ...viewOf(next), reclassified };
  });
}

/**
 * Only failures can change bucket: success is `ok` whatever the configuration says, and neither a discovery
 * document nor an override can turn a success into a failure.
 */
async function reclassifyFailures(
  tx: TxRunner,
  server: string,
  policy: ServerPolicy,
  rollups: CountChanges,
): Promise<number> {
  let changed = 0;
  let afterSeq = 0;
  for (;;) {
    const page = await failedEventsPage(tx, server, afterSeq, 2000);
    if (page.length === 0) return changed;
    for (const row of page) {
      const parsed = validateEvent(JSON.parse(row.body));
      if (!parsed.ok) continue; // stored rows were valid when accepted; a body we cannot read again keeps its bucket
      const next = classify(parsed.event, policy);
      if (next.bucket !== row.bucket || next.kind !== row.kind || next.rule !== row.rule) {
        await updateClassification(tx, {
          seq: row.seq,
          ts: row.ts,
          server: row.server,
          ...next,
          waitUntil: waitUntilFor(parsed.event, next),
        });
        if (row.counted === 1) rollups.reclassified(row, next, row.queued === 0);
        changed++;
      }
    }
    afterSeq = page[page.length - 1]?.seq ?? afterSeq;
  }
}

function viewOf(row: ServerConfigRow): ServerConfigView {
  const policy = policyOf(row);
  return {
    server: row.name,
    discovery: policy.discovery,
    discoverySource: row.discoveryRaw ? JSON.parse(row.discoveryRaw) : null,
    overrides: policy.overrides,
    updatedAt: row.updatedAt > 0 ? row.updatedAt : null,
  };
}
