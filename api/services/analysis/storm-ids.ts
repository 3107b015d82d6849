import { stormRow, stormRows } from '../../../db/queries/storms.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { stormAttemptIds } from '../../../shared/analysis/storm-attempts.ts';
import type { Storm, StormSummary } from '../../../shared/analysis/storm-model.ts';
import { STORM_DEFAULTS } from '../../../shared/analysis/storm-tracker.ts';
import { timelines } from '../../../shared/analysis/storms.ts';
import { loadAnalysis } from './load.ts';

/**
 * How far before a storm its detail reads: a probe storm that may hold some of a loop's span starts up to a window
 * earlier, and the refusals an attempt's verdict follows are most often within it.
 */
const STORM_LOOKBACK_MS = STORM_DEFAULTS.probeWindowMs;

/** Public storm ids (not the detector's digest, shared/analysis/storm-model.ts stormId) carry where to find the storm again (client, server, start), so that a link to one keeps working. */
export function publicStormId(storm: Pick<Storm, 'id' | 'client' | 'server' | 'firstTs'>): string {
  return Buffer.from(JSON.stringify([storm.client, storm.server, storm.firstTs, storm.id])).toString('base64url');
}

/** A storm for a list, its id made findable. */
export function stormSummary(storm: StormSummary): StormSummary {
  return { ...storm, id: publicStormId(storm) };
}

/** One storm with its attempt-by-attempt timeline, found again in its partition's events over its own span. */
export async function stormById(db: SqlRunner, id: string): Promise<(Storm & { id: string }) | null> {
  const detectorId = parsePublicStormId(id)?.[3];
  const row = detectorId === undefined ? null : await stormRow(db, detectorId);
  if (row === null) return null;
  const { client, server, firstTs, lastTs } = row;
  const from = firstTs - STORM_LOOKBACK_MS;
  const to = Math.max(lastTs, firstTs + STORM_DEFAULTS.probeWindowMs) + 1;
  const [{ events, verdicts }, probeStorms] = await Promise.all([
    loadAnalysis(db, { client, server, from, to }),
    row.kind === 'probe_storm' ? [] : stormRows(db, { client, server, from, to: lastTs + 1, kind: 'probe_storm' }),
  ]);
  const ids = stormAttemptIds(row, events, verdicts, probeStorms);
  return { ...row, id: publicStormId(row), timeline: timelines(events, verdicts)(ids) };
}

function parsePublicStormId(id: string): [string, string, number, string] | null {
  try {
    const value = JSON.parse(Buffer.from(id, 'base64url').toString());
    const ok =
      Array.isArray(value) &&
      value.length === 4 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      Number.isSafeInteger(value[2]) &&
      typeof value[3] === 'string';
    return ok ? (value as [string, string, number, string]) : null;
  } catch {
    return null;
  }
}
