import { stormRow } from '../../../db/queries/storms.ts';
import type { SqlRunner } from '../../../db/runner.ts';
import { detectStorms, STORM_DEFAULTS, type Storm, type StormSummary } from '../../../shared/analysis/storms.ts';
import { loadAnalysis } from './load.ts';

/** A probe storm's start depends on the refusals of the probe window before it: its detail reads that far back. */
const STORM_LOOKBACK_MS = STORM_DEFAULTS.probeWindowMs;

/** Public storm ids (not the detector's digest, shared/analysis/storms.ts stormId) carry where to find the storm again (client, server, start), so that a link to one keeps working. */
export function publicStormId(storm: Pick<Storm, 'id' | 'client' | 'server' | 'firstTs'>): string {
  return Buffer.from(JSON.stringify([storm.client, storm.server, storm.firstTs, storm.id])).toString('base64url');
}

/** A storm for a list, its id made findable. */
export function stormSummary(storm: StormSummary): StormSummary {
  return { ...storm, id: publicStormId(storm) };
}

/**
 * One storm with its attempt-by-attempt timeline, found again in its partition's events over its own span (and
 * the probe window before it, which decides where it starts).
 */
export async function stormById(db: SqlRunner, id: string): Promise<(Storm & { id: string }) | null> {
  const detectorId = parsePublicStormId(id)?.[3];
  const row = detectorId === undefined ? null : await stormRow(db, detectorId);
  if (row === null) return null;
  const { client, server, firstTs, lastTs } = row;
  const { events, verdicts } = await loadAnalysis(db, {
    client,
    server,
    from: firstTs - STORM_LOOKBACK_MS,
    to: lastTs + 1,
  });
  const storm = detectStorms(events, verdicts).find((s) => s.id === row.id);
  return storm === undefined ? null : { ...storm, id: publicStormId(storm) };
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
