import { type AnalysisRow, analysisEventOfRow } from '../../db/queries/analysis.ts';
import { dropGateKeys, type GateKeyRow, type KeyRef, saveGateKeys } from '../../db/queries/gate.ts';
import { loadCheckpoints, saveCheckpoints } from '../../db/queries/gate-checkpoints.ts';
import type { TxRunner } from '../../db/runner.ts';
import { partitionKey } from '../../shared/analysis/gate.ts';
import { planCheckpoint, type SavedCheckpoint, stepCheckpoint } from '../../shared/analysis/gate-step.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { keyDigest, loadKeys } from './gate-keys.ts';

/**
 * Steps the gate checkpoint of each partition a block holds events of through them (docs/adr/0021), in compaction's
 * swap transaction, which holds those partitions' locks: so the checkpoint moves with the events it was stepped
 * through, and a kill -9 leaves both or neither. A replay of the partition then starts from it over the events
 * still in rows (api/services/gate-maintenance.ts readReplays).
 */
export async function stepCheckpoints(tx: TxRunner, rows: readonly AnalysisRow[]): Promise<void> {
  const groups = new Map<string, AnalysisEvent[]>();
  for (const row of rows) {
    const event = analysisEventOfRow(row);
    const pk = partitionKey(event);
    if (pk === null) continue;
    const group = groups.get(pk);
    if (group === undefined) groups.set(pk, [event]);
    else group.push(event);
  }
  if (groups.size === 0) return;
  const saved = new Map((await loadCheckpoints(tx, [...groups.keys()])).map((row) => [row.partition, row]));
  const steps = [...groups].flatMap(([pk, events]) => planCheckpoint(pk, saved.get(pk), events) ?? []);
  const { stored } = await loadKeys(
    tx,
    steps.map((step) => [step.partition, step.keys] as const),
    'gate_checkpoint_keys',
  );
  const checkpoints: SavedCheckpoint[] = [];
  const kept: GateKeyRow[] = [];
  const dropped: KeyRef[] = [];
  for (const step of steps) {
    const stepped = stepCheckpoint(step, stored);
    checkpoints.push(stepped.checkpoint);
    for (const { partition, key, state } of stepped.keys) {
      if (state === null) dropped.push({ partition, key: keyDigest(key) });
      else kept.push({ partition, key: keyDigest(key), state });
    }
  }
  await Promise.all([
    saveCheckpoints(tx, checkpoints),
    saveGateKeys(tx, kept, 'gate_checkpoint_keys'),
    dropGateKeys(tx, dropped, 'gate_checkpoint_keys'),
  ]);
}
